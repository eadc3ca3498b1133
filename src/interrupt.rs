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

/// Listens for SIGINT and SIGTERM until the returned task is aborted.
pub fn listen(stop: StopFlag, progress: ProgressBar) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut signals = 0;
        loop {
            wait_for_signal().await;
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

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    let _ = tokio::signal::ctrl_c().await;
}
