//! A named thread that serves commands from a channel, for the app's long-lived helpers (the
//! recorder, the transcription worker, the output, notifications). Dropping the handle closes
//! the channel, so the thread's receive loop ends, and then waits for the thread: no helper
//! outlives the app, and no command needs to mean "stop".

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

pub struct CommandThread<C> {
    commands: Option<Sender<C>>,
    thread: Option<JoinHandle<()>>,
}

impl<C: Send + 'static> CommandThread<C> {
    /// Starts `serve` on a thread called `name`; it should return once its receiver reports
    /// the channel closed.
    pub fn spawn(
        name: &str,
        serve: impl FnOnce(Receiver<C>) + Send + 'static,
    ) -> std::io::Result<CommandThread<C>> {
        let (commands, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || serve(rx))?;
        Ok(CommandThread {
            commands: Some(commands),
            thread: Some(thread),
        })
    }

    /// Queues a command. A thread that has already ended (it panicked) drops it.
    pub fn send(&self, command: C) {
        if let Some(commands) = &self.commands {
            let _ = commands.send(command);
        }
    }
}

impl<C> Drop for CommandThread<C> {
    fn drop(&mut self) {
        self.commands.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn commands_are_served_in_order_and_drop_waits_for_the_thread() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let thread = CommandThread::spawn("test", move |rx| {
            for n in rx {
                std::thread::sleep(std::time::Duration::from_millis(5));
                sink.lock().unwrap().push(n);
            }
            sink.lock().unwrap().push(0);
        })
        .unwrap();
        for n in 1..=3 {
            thread.send(n);
        }
        drop(thread);
        assert_eq!(*seen.lock().unwrap(), vec![1, 2, 3, 0]);
    }
}
