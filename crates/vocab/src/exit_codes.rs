//! The exit codes of the `calltape` command, named once and used everywhere
//! (as cargo-nextest's `exit_codes` does). Scripts and CI read them: a value
//! never changes meaning. clap's own usage errors exit [`BAD_INPUT`] too.

/// The command did what was asked: a run completed (whatever the models
/// scored), suites check, a gate holds, cassettes verify.
pub const SUCCESS: i32 = 0;

/// The command ran and found failure: `check` listed problems, `compare`
/// crossed a `[gate]` threshold, `cassettes verify` found something, a
/// `--strict` replay was not exact, a cassette or a report could not be
/// written, a model answered no unit of the run (every unit errored: no
/// recording, a refused key, failed requests), or the run itself failed.
pub const FAILURE: i32 = 1;

/// Bad input, reported before any work starts: a flag, the configuration,
/// a scenario file, an unknown model, a `--filter` matching nothing,
/// `--approve interactive` without a terminal, a folder that is not a run
/// folder, a plan that would send keys elsewhere.
pub const BAD_INPUT: i32 = 2;

/// The run was stopped by Ctrl-C (or SIGTERM); its reports hold what
/// finished and `calltape run --resume RUN_DIR` runs the rest.
pub const INTERRUPTED: i32 = 130;
