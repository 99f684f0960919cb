// Package campaign names what the verification campaign (cmd/vsched) and
// the verifiers it runs share: the environment variables and test flags
// through which the campaign hands them a budget, a seed or a directory,
// and the variable that replays an explorer failure. Both sides import
// these names, so that a rename cannot leave one setting what nothing reads.
package campaign

// Environment variables.
const (
	EnvLinDuration = "VSCHED_LIN_DURATION" // how long each linearizability stress test runs, a duration
	EnvLinSeed     = "VSCHED_LIN_SEED"     // the seed of the stress tests' choice of operations, a uint64
	EnvArtifacts   = "VSCHED_ARTIFACTS"    // where a verifier writes what explains a failure; default os.TempDir
	EnvReplay      = "VSCHED_REPLAY"       // a schedule the explorer printed, to run that one execution
)

// Flags of the explore package's kernel-model tests, which the campaign
// passes after -args to search beyond the models' default bound.
const (
	FlagKernelBound      = "vsched.kernel-bound"      // preemption bound, an int
	FlagKernelExecutions = "vsched.kernel-executions" // execution cap of each model, an int
	FlagKernelTime       = "vsched.kernel-time"       // time budget of all models together, a duration
)
