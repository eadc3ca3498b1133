//! Stopping a run cleanly: the first Ctrl-C (SIGINT) or SIGTERM stops new
//! units from starting while the ones in flight finish (each request is
//! bounded by its timeout); a second one exits at once. Events are flushed
//! as they happen, so either way nothing written is lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::ProgressBar;

/// Whether the run has been asked to stop.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    pub fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Listens for SIGINT and SIGTERM until the returned task is aborted. The
/// signals are taken over here, before the task first runs, so one sent
/// while the run is still setting up stops it cleanly too.
pub fn listen(stop: StopFlag, progress: ProgressBar) -> tokio::task::JoinHandle<()> {
    let mut incoming = Signals::take_over();
    tokio::spawn(async move {
        let mut signals = 0;
        loop {
            incoming.next().await;
            signals += 1;
            if signals > 1 {
                progress.abandon();
                eprintln!("stopped at once; `calltape run --resume RUN_DIR` runs what did not finish");
                std::process::exit(crate::exit_codes::INTERRUPTED);
            }
            stop.set();
            let note = "stopping: no new units; letting those in flight finish (Ctrl-C again to quit at once)";
            if progress.is_hidden() {
                eprintln!("{note}");
            } else {
                progress.set_message(note);
            }
        }
    })
}

/// SIGINT and SIGTERM, registered with the runtime (a signal that cannot
/// be registered keeps its default: it ends the process).
#[cfg(unix)]
struct Signals {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl Signals {
    fn take_over() -> Signals {
        use tokio::signal::unix::{signal, SignalKind};
        Signals { interrupt: signal(SignalKind::interrupt()).ok(), terminate: signal(SignalKind::terminate()).ok() }
    }

    /// The next SIGINT or SIGTERM.
    async fn next(&mut self) {
        async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) {
            match signal {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = recv(&mut self.interrupt) => {}
            _ = recv(&mut self.terminate) => {}
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn take_over() -> Signals {
        Signals
    }

    async fn next(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}
