package mutant

// The seeded bugs of runq/ring.go. Each verifier package lists the ones it
// must report.
var (
	// StealFloorHalf steals floor(L/2) instead of ceil(L/2).
	StealFloorHalf = Mutant{
		Name: "steal-floor-half",
		File: "runq/ring.go",
		Old:  "n -= n / 2",
		New:  "n /= 2 // mutant: steals floor(L/2)",
	}
	// KickedRunNextLost drops the old runnext that Put(next) kicks out.
	KickedRunNextLost = Mutant{
		Name: "kicked-runnext-lost",
		File: "runq/ring.go",
		Old:  "\t\t// Kick the old runnext out to the regular ring.\n\t\tg = old\n",
		New:  "\t\treturn nil // mutant: the kicked runnext is dropped\n",
	}
	// GetStoreNotCas commits Get's consume with a store.
	GetStoreNotCas = Mutant{
		Name: "get-store-not-cas",
		File: "runq/ring.go",
		Old:  "\t\tg := r.slots[h%Size].Load()\n\t\tif r.head.CasRel(h, h+1) { // cas-release, commits consume\n\t\t\treturn g, false\n\t\t}\n",
		New:  "\t\tg := r.slots[h%Size].Load()\n\t\tr.head.StoreRel(h + 1) // mutant: a store races the thieves' CAS\n\t\treturn g, false\n",
	}
	// DrainStoreNotCas commits Drain's consume with a store.
	DrainStoreNotCas = Mutant{
		Name: "drain-store-not-cas",
		File: "runq/ring.go",
		Old:  "if r.head.CasRel(h, t) {",
		New:  "if r.head.StoreRel(t); true { // mutant: a store races the thieves' CAS",
	}
	// PutSlowStoreNotCas commits the overflow's consume with a store.
	PutSlowStoreNotCas = Mutant{
		Name: "putslow-store-not-cas",
		File: "runq/ring.go",
		Old:  "\tif !r.head.CasRel(h, h+n) { // cas-release, commits consume\n\t\treturn nil\n\t}\n",
		New:  "\tr.head.StoreRel(h + n) // mutant: a store races the thieves' CAS\n",
	}
	// GrabLoadStoreNotCas commits a thief's consume with a load of head
	// and a store: the compare and the swap are no longer one step.
	GrabLoadStoreNotCas = Mutant{
		Name: "grab-load-store-not-cas",
		File: "runq/ring.go",
		Old:  "\t\tif r.head.CasRel(h, h+n) { // cas-release, commits consume\n\t\t\treturn n\n\t\t}\n",
		New:  "\t\tif r.head.Load() == h { // mutant: CAS split into a load and a store\n\t\t\tr.head.StoreRel(h + n)\n\t\t\treturn n\n\t\t}\n",
	}
	// TailBeforeSlot publishes the new tail before the slot holds the item.
	TailBeforeSlot = Mutant{
		Name: "tail-before-slot",
		File: "runq/ring.go",
		Old:  "\t\t\tr.slots[t%Size].Store(g)\n\t\t\tr.tail.StoreRel(t + 1) // store-release, makes the item available for consumption\n",
		New:  "\t\t\tr.tail.StoreRel(t + 1) // mutant: tail published before the slot\n\t\t\tr.slots[t%Size].Store(g)\n",
	}
	// NoTornReadRetry trusts an inconsistent pair of head and tail reads in
	// Grab, so a steal can copy more than Size/2 items.
	NoTornReadRetry = Mutant{
		Name: "no-torn-read-retry",
		File: "runq/ring.go",
		Old:  "\t\tif n > Size/2 { // read inconsistent h and t\n\t\t\tcontinue\n\t\t}\n",
		New:  "\t\t// mutant: no retry on an inconsistent read of head and tail\n",
	}
	// EmptySingleTailRead lets Empty decide on one read of tail.
	EmptySingleTailRead = Mutant{
		Name: "empty-single-tail-read",
		File: "runq/ring.go",
		Old:  "\t\tnext := r.runnext.Load()\n\t\tif t == r.tail.Load() {\n\t\t\treturn h == t && next == nil\n",
		New:  "\t\tnext := r.runnext.Load()\n\t\tif true { // mutant: no second tail read\n\t\t\treturn h == t && next == nil\n",
	}
)
