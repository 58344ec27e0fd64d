//! Wakes the event loop at a deadline. tao's GTK event loop treats `ControlFlow::WaitUntil` as
//! plain `Wait` (it blocks in GTK until some event comes), so a deadline with nothing else
//! happening — the overlay hiding after a dictation, the max-length notice during a silent
//! recording — would wait for the next unrelated event. One thread sleeps until the earliest
//! deadline asked for and then sends one event; with no deadline it sleeps without a timeout
//! (the idle app wakes nobody).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

#[derive(Default)]
struct Shared {
    deadline: Option<Instant>,
    quit: bool,
}

pub struct Wakeup {
    shared: Arc<(Mutex<Shared>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Wakeup {
    /// Starts the thread; `wake` is called (on it) when a deadline is reached.
    pub fn spawn(wake: impl Fn() + Send + 'static) -> std::io::Result<Wakeup> {
        let shared = Arc::new((Mutex::new(Shared::default()), Condvar::new()));
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name("wakeup".into())
            .spawn(move || run(&theirs, &wake))?;
        Ok(Wakeup {
            shared,
            thread: Some(thread),
        })
    }

    /// The next moment to wake the loop (`None`: none). Replaces the previous one.
    pub fn set(&self, deadline: Option<Instant>) {
        let (lock, changed) = &*self.shared;
        let mut shared = lock.lock().unwrap_or_else(PoisonError::into_inner);
        if shared.deadline != deadline {
            shared.deadline = deadline;
            changed.notify_one();
        }
    }
}

fn run(shared: &(Mutex<Shared>, Condvar), wake: &dyn Fn()) {
    let (lock, changed) = shared;
    let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if state.quit {
            return;
        }
        match state.deadline {
            None => {
                state = changed.wait(state).unwrap_or_else(PoisonError::into_inner);
            }
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    state.deadline = None;
                    drop(state);
                    wake();
                    state = lock.lock().unwrap_or_else(PoisonError::into_inner);
                } else {
                    state = changed
                        .wait_timeout(state, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }
}

impl Drop for Wakeup {
    fn drop(&mut self) {
        {
            let (lock, changed) = &*self.shared;
            lock.lock().unwrap_or_else(PoisonError::into_inner).quit = true;
            changed.notify_one();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
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
