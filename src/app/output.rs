//! The output thread: owns the [`Injector`] (clipboard + keystrokes) for the app's lifetime and
//! delivers texts one at a time, in the order they come, so the waits of a paste (modifiers,
//! the next dictation's key-up, clipboard restore) never block the event loop and a later text
//! never overtakes an earlier one. It owns the last delivery too ([`LastDelivery`]): whether a
//! text joins the one before is decided here, at delivery.

use super::delivery::LastDelivery;
use crate::command_thread::CommandThread;
use crate::inject::{Delivered, InjectError, Injector, Keystrokes, OutputMode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Whether the hotkey is down now, as the coordinator last heard (set on its Pressed and
/// Released events): a paste that finds the modifiers held waits for this key-up.
#[derive(Debug, Clone, Default)]
pub struct HotkeyDown(Arc<AtomicBool>);

impl HotkeyDown {
    pub fn set(&self, down: bool) {
        self.0.store(down, Ordering::Release);
    }

    pub fn get(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

#[derive(Debug)]
pub enum OutputCommand {
    /// Deliver `text` (as said: the joining space is added here).
    Deliver {
        id: u64,
        text: String,
        mode: OutputMode,
        /// The paste keystroke and the key after the text, from the dictation's mode.
        keys: Keystrokes,
        /// Whether the text may continue the one before with a space (the mode's choice).
        join_previous: bool,
    },
    /// Put a text on the clipboard (the menu's recent transcripts).
    Copy(String),
    /// "Forget everything": the last delivered text (kept to join the next one) is dropped.
    Forget,
}

#[derive(Debug)]
pub enum OutputEvent {
    /// `text` as said; `delivered.sent` as sent.
    Delivered {
        id: u64,
        text: String,
        delivered: Delivered,
        /// The app the text went into (pasted or typed), when the system tells it.
        app: Option<String>,
    },
    Failed {
        id: Option<u64>,
        message: String,
    },
}

pub struct Output(CommandThread<OutputCommand>);

impl Output {
    pub fn spawn(
        hotkey: HotkeyDown,
        emit: impl Fn(OutputEvent) + Send + 'static,
    ) -> std::io::Result<Output> {
        CommandThread::spawn("output", move |rx| {
            let mut last = LastDelivery::default();
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
                if let OutputCommand::Forget = command {
                    last = LastDelivery::default();
                    continue;
                }
                let Some(injector) = injector.as_mut() else {
                    let id = match command {
                        OutputCommand::Deliver { id, .. } => Some(id),
                        OutputCommand::Copy(_) | OutputCommand::Forget => None,
                    };
                    emit(OutputEvent::Failed {
                        id,
                        message: "the clipboard is not available".into(),
                    });
                    continue;
                };
                match command {
                    OutputCommand::Deliver {
                        id,
                        text,
                        mode,
                        keys,
                        join_previous,
                    } => {
                        let joined = |focus| match join_previous {
                            true => last.join(focus, Instant::now(), &text),
                            false => text.clone(),
                        };
                        let outcome = injector.deliver(&text, mode, keys, &|| hotkey.get(), joined);
                        emit(match outcome {
                            Ok(delivered) => {
                                last.record(&delivered);
                                let app = delivered
                                    .focus
                                    .filter(|_| delivered.inserted())
                                    .and_then(|focus| injector.app_name(focus));
                                OutputEvent::Delivered {
                                    id,
                                    text,
                                    delivered,
                                    app,
                                }
                            }
                            Err(e) => {
                                last = LastDelivery::default();
                                failed(Some(id), e)
                            }
                        })
                    }
                    OutputCommand::Copy(text) => {
                        if let Err(e) = injector.set_clipboard(&text) {
                            emit(failed(None, e));
                        }
                    }
                    OutputCommand::Forget => {}
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
