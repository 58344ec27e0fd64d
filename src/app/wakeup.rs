//! Wakes the event loop at a deadline. tao's GTK event loop treats `ControlFlow::WaitUntil` as
//! plain `Wait` (it blocks in GTK until some event comes), so a deadline with nothing else
//! happening — the overlay hiding after a dictation, the max-length notice during a silent
//! recording — would wait for the next unrelated event. One thread sleeps until the earliest
//! deadline asked for and then sends one event; with no deadline it sleeps without a timeout
//! (the idle app wakes nobody).

use crate::command_thread::CommandThread;
use std::cell::Cell;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Instant;

pub struct Wakeup {
    /// Each new deadline (`None`: none).
    thread: CommandThread<Option<Instant>>,
    /// The deadline last sent, so an unchanged one is not sent again at every event.
    sent: Cell<Option<Instant>>,
}

impl Wakeup {
    /// Starts the thread; `wake` is called (on it) when a deadline is reached.
    pub fn spawn(wake: impl Fn() + Send + 'static) -> std::io::Result<Wakeup> {
        let thread = CommandThread::spawn("wakeup", move |deadlines| run(&deadlines, &wake))?;
        Ok(Wakeup {
            thread,
            sent: Cell::new(None),
        })
    }

    /// The next moment to wake the loop (`None`: none). Replaces the previous one; a deadline
    /// already past is sent again (the thread has forgotten it once it woke the loop).
    pub fn set(&self, deadline: Option<Instant>) {
        let past = deadline.is_some_and(|at| at <= Instant::now());
        if self.sent.replace(deadline) != deadline || past {
            self.thread.send(deadline);
        }
    }
}

fn run(deadlines: &Receiver<Option<Instant>>, wake: &dyn Fn()) {
    let mut deadline: Option<Instant> = None;
    loop {
        let next = match deadline {
            None => deadlines.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(at) => deadlines.recv_timeout(at.saturating_duration_since(Instant::now())),
        };
        match next {
            Ok(new) => deadline = new,
            Err(RecvTimeoutError::Timeout) => {
                deadline = None;
                wake();
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{mpsc, Mutex};
    use std::time::Duration;

    #[test]
    fn it_wakes_once_at_the_latest_deadline_set_and_not_without_one() {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let wakeup = Wakeup::spawn(move || {
            let _ = tx.lock().unwrap().send(Instant::now());
        })
        .unwrap();
        let t0 = Instant::now();
        wakeup.set(Some(t0 + Duration::from_millis(500)));
        // Moved earlier: it wakes then, once.
        wakeup.set(Some(t0 + Duration::from_millis(50)));
        let woke = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(
            woke >= t0 + Duration::from_millis(50),
            "not before the deadline"
        );
        assert!(rx.recv_timeout(Duration::from_millis(600)).is_err(), "once");
        // Cleared: no wake.
        wakeup.set(Some(Instant::now() + Duration::from_millis(100)));
        wakeup.set(None);
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        drop(wakeup);
    }
}
