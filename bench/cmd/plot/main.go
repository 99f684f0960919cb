package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of the plot.
const (
	width  = 14 * vg.Centimeter
	height = 9 * vg.Centimeter
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

// config holds the flags.
type config struct {
	bench  string
	x      string
	unit   string
	where  whereFlag
	logX   bool
	logY   bool
	title  string
	ylabel string
	out    string
}

// whereFlag is the value of -where: the key=value pairs a name must have.
type whereFlag map[string]string

func (w whereFlag) String() string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		s = append(s, k+"="+w[k])
	}
	return strings.Join(s, ",")
}

func (w whereFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	if old, dup := w[k]; dup && old != v {
		return fmt.Errorf("%s=%s and %s=%s: a key can be fixed only once", k, old, k, v)
	}
	w[k] = v
	return nil
}

// input is one source of benchmark output.
type input struct {
	name string
	r    io.Reader
}

// series is the line of one implementation: a median y at each x, by
// increasing x.
type series struct {
	impl string
	xs   []int64
	ys   []float64
}

// run is the command: it returns the exit status.
func run(args []string, stdin io.Reader, stderr io.Writer) int {
	cfg, files, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return 2
	}
	var inputs []input
	for _, f := range files {
		if f == "-" {
			inputs = append(inputs, input{"stdin", stdin})
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			fmt.Fprintf(stderr, "plot: %v\n", err)
			return 2
		}
		defer fh.Close()
		inputs = append(inputs, input{f, fh})
	}
	if len(files) == 0 {
		inputs = append(inputs, input{"stdin", stdin})
	}
	ss, err := collect(cfg, inputs)
	if err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return 2
	}
	svg, err := render(cfg, ss)
	if err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return 2
	}
	if err := os.WriteFile(cfg.out, svg, 0o644); err != nil {
		fmt.Fprintf(stderr, "plot: %v\n", err)
		return 2
	}
	return 0
}

// parseFlags parses and checks the flags; it returns the files to read.
func parseFlags(args []string, stderr io.Writer) (*config, []string, error) {
	cfg := &config{where: whereFlag{}}
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.bench, "bench", "", "the benchmark `name`, without the Benchmark prefix")
	fs.StringVar(&cfg.x, "x", "", "the `key` of the name whose integer value is the x axis")
	fs.StringVar(&cfg.unit, "unit", "", "the `unit` of the metric to plot, as printed (ns/op, B/conn, rps, ...)")
	fs.Var(cfg.where, "where", "keep only names with `key=value` (repeatable)")
	fs.BoolVar(&cfg.logX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&cfg.logY, "logy", false, "logarithmic y axis")
	fs.StringVar(&cfg.title, "title", "", "the `text` of the title (default: the benchmark name)")
	fs.StringVar(&cfg.ylabel, "ylabel", "", "the `text` of the y axis label (default: the unit)")
	fs.StringVar(&cfg.out, "o", "", "the SVG `file` to write")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: plot -bench Name -x key -unit unit [-where k=v] [-logx] [-logy] [-title text] [-ylabel text] -o file.svg [file ...]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		// The flag package has printed the error and the usage.
		return nil, nil, errors.New("bad flags")
	}
	switch {
	case cfg.bench == "":
		return nil, nil, errors.New("-bench is required")
	case strings.HasPrefix(cfg.bench, "Benchmark"):
		return nil, nil, fmt.Errorf("-bench %s: give the name without the Benchmark prefix", cfg.bench)
	case strings.ContainsAny(cfg.bench, "/ "):
		return nil, nil, fmt.Errorf("-bench %q: give only the first element of the name", cfg.bench)
	case cfg.x == "":
		return nil, nil, errors.New("-x is required")
	case cfg.x == "impl":
		return nil, nil, errors.New("-x impl: impl makes the lines, it cannot be the x axis")
	case cfg.unit == "":
		return nil, nil, errors.New("-unit is required")
	case cfg.out == "":
		return nil, nil, errors.New("-o is required")
	case !strings.EqualFold(filepath.Ext(cfg.out), ".svg"):
		return nil, nil, fmt.Errorf("-o %s: the file must end in .svg", cfg.out)
	}
	if _, ok := cfg.where[cfg.x]; ok {
		return nil, nil, fmt.Errorf("-where %s=...: %s is the x axis", cfg.x, cfg.x)
	}
	return cfg, fs.Args(), nil
}

// extra is the keys of one line that are neither x, impl nor fixed with
// -where, with where the line was read.
type extra struct {
	pos  string
	keys map[string]string
}

// collect reads the inputs and returns a series per implementation, in
// the order the implementations first appear.
func collect(cfg *config, inputs []input) ([]series, error) {
	first := "Benchmark" + cfg.bench
	samples := map[string]map[int64][]float64{}
	var impls []string
	var extras []extra
	seen := 0 // lines of the benchmark, before -where
	for _, in := range inputs {
		sc := bufio.NewScanner(in.r)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			pos := fmt.Sprintf("%s:%d", in.name, n)
			name, fields, ok := resultLine(sc.Text())
			if !ok {
				continue
			}
			elems := strings.Split(name, "/")
			if elems[0] != first {
				continue
			}
			seen++
			keys, err := nameKeys(elems[1:])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", pos, name, err)
			}
			if !matches(keys, cfg.where) {
				continue
			}
			xs, ok := keys[cfg.x]
			if !ok {
				return nil, fmt.Errorf("%s: %s has no %s=", pos, name, cfg.x)
			}
			x, err := strconv.ParseInt(xs, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %s=%s is not an integer", pos, name, cfg.x, xs)
			}
			impl, ok := keys["impl"]
			if !ok {
				return nil, fmt.Errorf("%s: %s has no impl=", pos, name)
			}
			y, err := metric(fields, cfg.unit)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", pos, name, err)
			}
			if samples[impl] == nil {
				samples[impl] = map[int64][]float64{}
				impls = append(impls, impl)
			}
			samples[impl][x] = append(samples[impl][x], y)

			ex := extra{pos: pos, keys: map[string]string{}}
			for k, v := range keys {
				if _, fixed := cfg.where[k]; !fixed && k != cfg.x && k != "impl" {
					ex.keys[k] = v
				}
			}
			extras = append(extras, ex)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %v", in.name, err)
		}
	}
	if len(impls) == 0 {
		if seen > 0 {
			return nil, fmt.Errorf("no line of %s has %s", first, cfg.where)
		}
		return nil, fmt.Errorf("no result of %s in the input", first)
	}
	if err := sameExtras(first, extras); err != nil {
		return nil, err
	}

	var ss []series
	for _, impl := range impls {
		s := series{impl: impl}
		s.xs = slices.Sorted(maps.Keys(samples[impl]))
		for _, x := range s.xs {
			s.ys = append(s.ys, median(samples[impl][x]))
		}
		ss = append(ss, s)
	}
	return ss, nil
}

// resultLine splits a benchmark result line into its name, with the
// GOMAXPROCS suffix removed, and its fields after the iteration count. ok
// is false for any other line, such as the bare name go test -v prints
// before a benchmark's log.
func resultLine(line string) (name string, fields []string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", nil, false
	}
	if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
		return "", nil, false
	}
	name = f[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 && allDigits(name[i+1:]) {
		name = name[:i]
	}
	return name, f[2:], true
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// nameKeys returns the key=value elements of a name, after the first.
func nameKeys(elems []string) (map[string]string, error) {
	keys := map[string]string{}
	for _, e := range elems {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("element %q is not key=value", e)
		}
		if _, dup := keys[k]; dup {
			return nil, fmt.Errorf("%s appears twice", k)
		}
		keys[k] = v
	}
	return keys, nil
}

// matches reports whether keys has every pair of where.
func matches(keys map[string]string, where whereFlag) bool {
	for k, v := range where {
		if got, ok := keys[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// metric returns the value of unit among the value-unit pairs of a line.
func metric(fields []string, unit string) (float64, error) {
	if len(fields)%2 != 0 {
		return 0, errors.New("the fields after the iteration count are not value-unit pairs")
	}
	for i := 0; i < len(fields); i += 2 {
		if fields[i+1] != unit {
			continue
		}
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return 0, fmt.Errorf("%s %s: not a number", fields[i], unit)
		}
		return v, nil
	}
	return 0, fmt.Errorf("no %s on the line", unit)
}

// sameExtras checks that each key other than x, impl and those fixed with
// -where has one value (or is absent) on every line.
func sameExtras(bench string, extras []extra) error {
	var keys []string
	for _, ex := range extras {
		for k := range ex.keys {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		// The first line with each value, in input order.
		var vals, where []string
		for _, ex := range extras {
			v, ok := ex.keys[k]
			if !ok {
				v = "(none)"
			}
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
				where = append(where, ex.pos)
			}
		}
		if len(vals) > 1 {
			var desc []string
			for i := range vals {
				desc = append(desc, vals[i]+" at "+where[i])
			}
			return fmt.Errorf("the lines of %s differ in %s (%s): choose one with -where %s=VALUE",
				bench, k, strings.Join(desc, ", "), k)
		}
	}
	return nil
}

// median returns the median of vs, the mean of the two middle values
// when there is an even number of them.
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// render draws the series and returns the SVG document.
func render(cfg *config, ss []series) ([]byte, error) {
	p, err := newPlot(cfg, ss)
	if err != nil {
		return nil, err
	}
	c := vgsvg.New(width, height)
	drawBeside(draw.New(c), p)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newPlot makes the plot of the series.
func newPlot(cfg *config, ss []series) (*plot.Plot, error) {
	if cfg.logX || cfg.logY {
		for _, s := range ss {
			for i, x := range s.xs {
				if cfg.logX && x <= 0 {
					return nil, fmt.Errorf("-logx: impl=%s has %s=%d, not above zero", s.impl, cfg.x, x)
				}
				if cfg.logY && !(s.ys[i] > 0) {
					return nil, fmt.Errorf("-logy: impl=%s at %s=%d has %v %s, not above zero", s.impl, cfg.x, x, s.ys[i], cfg.unit)
				}
			}
		}
	}

	p := plot.New()
	p.Title.Text = cfg.title
	if p.Title.Text == "" {
		p.Title.Text = cfg.bench
	}
	p.X.Label.Text = cfg.x
	p.Y.Label.Text = cfg.ylabel
	if p.Y.Label.Text == "" {
		p.Y.Label.Text = cfg.unit
	}

	var lines []any
	for _, s := range ss {
		xys := make(plotter.XYs, len(s.xs))
		for i := range s.xs {
			xys[i] = plotter.XY{X: float64(s.xs[i]), Y: s.ys[i]}
		}
		lines = append(lines, s.impl, xys)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return nil, err
	}

	if cfg.logX {
		logAxis(&p.X)
	}
	if cfg.logY {
		logAxis(&p.Y)
	} else if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	return p, nil
}

// legendGap is the space between the plot and its legend, and
// legendMargin the space to the right of the legend.
const (
	legendGap    = 4 * vg.Millimeter
	legendMargin = 2 * vg.Millimeter
)

// drawBeside draws p on c with its legend to the right of the plot, out
// of the way of the lines, level with the top of the data.
func drawBeside(c draw.Canvas, p *plot.Plot) {
	leg := p.Legend
	leg.Top, leg.Left = true, true
	p.Legend = plot.NewLegend() // no entries: p.Draw draws no legend
	w := legendGap + leg.Rectangle(c).Size().X + legendMargin
	p.Draw(draw.Crop(c, 0, -w, 0, 0))
	var top vg.Length
	if p.Title.Text != "" {
		top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	leg.Draw(draw.Crop(c, c.Size().X-w+legendGap, -legendMargin, 0, -top))
}

// logAxis turns a into a logarithmic axis labelled at the powers of ten.
func logAxis(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = plot.TickerFunc(logTicks)
	if a.Min == a.Max {
		// One value: the axis would otherwise be widened by one on each
		// side, to zero or below.
		a.Min /= 2
		a.Max *= 2
	}
}

// logTicks returns a tick at each 1 to 9 times a power of ten between
// min and max. It labels the powers of ten, or, when fewer than two of
// them lie between min and max, 1, 2 and 5 times them, or if that is still
// fewer than two, every tick. With fewer than two such ticks it returns
// the linear axis's ticks.
func logTicks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min && !math.IsInf(max, 0)) {
		// Not a range a log axis can have (the checks in newPlot keep
		// it from happening).
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	var ticks []plot.Tick
	var ms []int // the multiple of a power of ten at each tick
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			if v := times(m, e); v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v})
				ms = append(ms, m)
			}
		}
	}
	if len(ticks) < 2 {
		// Less than a factor of two or so between min and max: the
		// axis is nearly linear.
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	for _, label := range []func(m int) bool{
		func(m int) bool { return m == 1 },
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(m int) bool { return true },
	} {
		n := 0
		for _, m := range ms {
			if label(m) {
				n++
			}
		}
		if n < 2 {
			continue
		}
		for i, m := range ms {
			if label(m) {
				ticks[i].Label = tickLabel(ticks[i].Value)
			}
		}
		break
	}
	return ticks
}

// times returns m times 10 to the power e, rounded once: 3 times 10 to
// the -1 is 0.3, where 3*0.1 is not.
func times(m, e int) float64 {
	if e < 0 {
		return float64(m) / math.Pow10(-e)
	}
	return float64(m) * math.Pow10(e)
}

// tickLabel formats a tick value: in full, unless it is very large or
// very small.
func tickLabel(v float64) string {
	if a := math.Abs(v); a >= 1e-4 && a < 1e9 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
