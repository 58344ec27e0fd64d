//! whisper-dictation: push-to-talk dictation with OpenAI Whisper running locally on libtorch.
//!
//! The library holds everything the binary (`src/main.rs`) drives: the menu-bar app (`app`:
//! coordinator, state machine, tray, worker), audio input (`audio`: WAV, microphone, energy
//! gate), the Whisper engine (`whisper`), where it runs (`device`, `transcriber`), delivering
//! text (`inject`), the app's files (`settings`, `recordings`, `paths`, `logging`), and the
//! control channel's client (`remote`: `whisper-dictation start | stop | toggle | cancel`).

pub mod app;
pub mod app_icons;
pub mod atomic_file;
pub mod audio;
pub mod bundle;
pub mod command_thread;
pub mod device;
pub mod history;
pub mod i18n;
pub mod inject;
pub mod logging;
pub mod login_item;
pub mod models;
pub mod paths;
pub mod permissions;
pub mod platform;
pub mod private_files;
pub mod recordings;
pub mod remote;
pub mod settings;
pub mod single_instance;
pub mod system_shortcuts;
pub mod transcriber;
pub mod wer;
pub mod whisper;
