//! The app's orderly end, run once whichever way its event loop ends: Quit in the menu, a
//! signal (Ctrl+C, SIGTERM, SIGHUP), or the system ending the app — on macOS a logout, restart
//! or shutdown, or another app asking it to quit, all of which reach it as AppKit's
//! `terminate:`.
//!
//! How each way ends, as tao 0.37's source has it:
//! - Quit or a signal: the coordinator sets `quit` and the loop's callback answers
//!   `ControlFlow::Exit`; tao stops the loop, delivers `Event::LoopDestroyed` (macOS
//!   `platform_impl/macos/event_loop.rs:240`, `AppState::exit` in `app_state.rs:271-273`;
//!   Linux `platform_impl/linux/event_loop.rs:1086/1141/1157`) and `run_return` returns.
//! - `terminate:` (macOS only): AppKit calls the delegate's `applicationWillTerminate:`
//!   (`app_delegate.rs:130`), which delivers `LoopDestroyed` through the same
//!   `AppState::exit`, and then AppKit calls `exit()` itself: `run_return` never returns, so
//!   neither the code after it in `app::run` nor `main`'s drops (the log file's writer) run.
//!
//! So the end runs at `LoopDestroyed`, the one event every way delivers, and again after
//! `run_return` in case a platform returns without it; [`Shutdown`] lets only the first
//! through. It unregisters the hotkey, removes the control socket, stops the worker (no
//! waiting for the transcriptions queued: what is not done stays in its journal and is
//! recovered at the next start), says in the log how the app ended, and writes the log file
//! out ([`crate::logging::finish`]).

use super::App;
use tao::event::Event;

/// How the app ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::app) enum Ending {
    /// The app ended its loop itself: Quit, or a signal.
    Asked,
    /// The loop ended without the app asking: macOS's `terminate:` (logout, restart, shutdown,
    /// another app's quit request).
    System,
}

/// Lets the end run once.
#[derive(Debug, Default)]
pub(in crate::app) struct Shutdown {
    ended: Option<Ending>,
}

impl Shutdown {
    /// The ending to carry out now: the first time the loop's end is seen, with `quit_asked`
    /// (the app had set `quit`) telling which; `None` every later time.
    pub(in crate::app) fn begin(&mut self, quit_asked: bool) -> Option<Ending> {
        if self.ended.is_some() {
            return None;
        }
        let ending = if quit_asked {
            Ending::Asked
        } else {
            Ending::System
        };
        self.ended = Some(ending);
        Some(ending)
    }
}

/// Whether tao's `event` is the loop's end, where the shutdown runs: on macOS after a
/// `terminate:` nothing else of the app runs.
pub(in crate::app) fn ends_the_loop<T>(event: &Event<'_, T>) -> bool {
    matches!(event, Event::LoopDestroyed)
}

impl App {
    /// The orderly end (module doc); nothing the second time.
    pub(super) fn shut_down(&mut self) {
        let Some(ending) = self.shutdown.begin(self.quit) else {
            return;
        };
        self.quit = true;
        if let (Some(hotkey), Some(hotkeys)) = (self.hotkey.take(), &self.hotkeys) {
            let _ = hotkeys.unregister(hotkey);
        }
        self.worker.stop_now();
        self.quiet.end();
        // Before macOS's `exit()`: no socket file is left for clients to find.
        self.control.take();
        let unfinished = self.dictation.queued();
        match ending {
            Ending::Asked => tracing::info!(
                unfinished,
                "quit; dictations not finished are recovered at the next start"
            ),
            Ending::System => tracing::info!(
                unfinished,
                "ended by the system (logout, restart or shutdown); dictations not finished \
                 are recovered at the next start"
            ),
        }
        crate::logging::finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tao::event::StartCause;

    #[test]
    fn only_loop_destroyed_ends_the_loop() {
        assert!(ends_the_loop(&Event::<()>::LoopDestroyed));
        assert!(!ends_the_loop(&Event::<()>::NewEvents(StartCause::Init)));
        assert!(!ends_the_loop(&Event::<()>::MainEventsCleared));
        assert!(!ends_the_loop(&Event::UserEvent(())));
    }

    #[test]
    fn a_quit_then_loop_destroyed_then_the_return_shuts_down_once() {
        let mut shutdown = Shutdown::default();
        // Quit: LoopDestroyed comes with `quit` set...
        assert_eq!(shutdown.begin(true), Some(Ending::Asked));
        // ...and `run_return` returns: nothing more.
        assert_eq!(shutdown.begin(true), None);
    }

    #[test]
    fn a_logout_is_a_loop_destroyed_the_app_did_not_ask_for() {
        // macOS's terminate: delivers LoopDestroyed without `quit`; the process then exits.
        let mut shutdown = Shutdown::default();
        assert_eq!(shutdown.begin(false), Some(Ending::System));
        assert_eq!(shutdown.begin(true), None);
        assert_eq!(shutdown.begin(false), None);
    }
}
