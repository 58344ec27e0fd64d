//! The output thread: owns the [`Injector`] (clipboard + keystrokes) for the app's lifetime and
//! delivers texts one at a time, so the waits of a paste (modifiers, clipboard restore) never
//! block the event loop.

use crate::command_thread::CommandThread;
use crate::inject::{Delivered, InjectError, Injector, OutputMode};

#[derive(Debug)]
pub enum OutputCommand {
    Deliver {
        id: u64,
        text: String,
        mode: OutputMode,
    },
    /// Put a text on the clipboard (the menu's recent transcripts).
    Copy(String),
}

#[derive(Debug)]
pub enum OutputEvent {
    Delivered { id: u64, delivered: Delivered },
    Failed { id: Option<u64>, message: String },
}

pub struct Output(CommandThread<OutputCommand>);

impl Output {
    pub fn spawn(emit: impl Fn(OutputEvent) + Send + 'static) -> std::io::Result<Output> {
        CommandThread::spawn("output", move |rx| {
            let mut injector = match Injector::new() {
                Ok(injector) => Some(injector),
                Err(e) => {
                    emit(OutputEvent::Failed {
                        id: None,
                        message: e.to_string(),
                    });
                    None
                }
            };
            for command in rx {
                let Some(injector) = injector.as_mut() else {
                    let id = match command {
                        OutputCommand::Deliver { id, .. } => Some(id),
                        OutputCommand::Copy(_) => None,
                    };
                    emit(OutputEvent::Failed {
                        id,
                        message: "the clipboard is not available".into(),
                    });
                    continue;
                };
                match command {
                    OutputCommand::Deliver { id, text, mode } => {
                        emit(match injector.deliver(&text, mode) {
                            Ok(delivered) => OutputEvent::Delivered { id, delivered },
                            Err(e) => failed(Some(id), e),
                        })
                    }
                    OutputCommand::Copy(text) => {
                        if let Err(e) = injector.set_clipboard(&text) {
                            emit(failed(None, e));
                        }
                    }
                }
            }
        })
        .map(Output)
    }

    pub fn send(&self, command: OutputCommand) {
        self.0.send(command);
    }
}

fn failed(id: Option<u64>, e: InjectError) -> OutputEvent {
    OutputEvent::Failed {
        id,
        message: e.to_string(),
    }
}
