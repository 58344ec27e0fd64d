//! The hotkey on macOS and Windows: global-hotkey's `GlobalHotKeyManager`, which waits without
//! polling there (macOS: Carbon's `RegisterEventHotKey`, whose presses and releases the main
//! thread's run loop delivers, and a CGEventTap on that run loop for media keys; Windows:
//! `RegisterHotKey`'s message, then a 50 ms poll for the key-up while the key is held). Its
//! events go to one process-wide handler, set once; it calls the newest listener's `on_event`.

use super::{HotkeyError, OnEvent};
use global_hotkey::hotkey::HotKey;
use global_hotkey::{GlobalHotKeyEvent, GlobalHotKeyManager};
use std::sync::{Arc, Mutex, Once};

type Shared = Arc<dyn Fn(global_hotkey::HotKeyState) + Send + Sync + 'static>;

/// The newest listener's `on_event`, which global-hotkey's one handler calls.
static ON_EVENT: Mutex<Option<Shared>> = Mutex::new(None);
static HANDLER_SET: Once = Once::new();

pub(super) struct Listener {
    manager: GlobalHotKeyManager,
    on_event: Shared,
}

impl Listener {
    pub(super) fn new(on_event: OnEvent) -> Result<Listener, HotkeyError> {
        let manager =
            GlobalHotKeyManager::new().map_err(|e| HotkeyError::Refused(e.to_string()))?;
        let on_event: Shared = Arc::from(on_event);
        *on_event_slot() = Some(Arc::clone(&on_event));
        HANDLER_SET.call_once(|| {
            GlobalHotKeyEvent::set_event_handler(Some(|event: GlobalHotKeyEvent| {
                let on_event = on_event_slot().clone();
                if let Some(on_event) = on_event {
                    on_event(event.state());
                }
            }));
        });
        Ok(Listener { manager, on_event })
    }

    pub(super) fn register(&self, hotkey: HotKey) -> Result<(), HotkeyError> {
        self.manager.register(hotkey).map_err(|e| match e {
            global_hotkey::Error::AlreadyRegistered(_) => {
                HotkeyError::AlreadyRegistered(hotkey.to_string())
            }
            e => HotkeyError::Refused(e.to_string()),
        })
    }

    pub(super) fn unregister(&self, hotkey: HotKey) -> Result<(), HotkeyError> {
        self.manager
            .unregister(hotkey)
            .map_err(|e| HotkeyError::Refused(e.to_string()))
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let mut slot = on_event_slot();
        if slot
            .as_ref()
            .is_some_and(|f| Arc::ptr_eq(f, &self.on_event))
        {
            *slot = None;
        }
    }
}

fn on_event_slot() -> std::sync::MutexGuard<'static, Option<Shared>> {
    ON_EVENT.lock().unwrap_or_else(|p| p.into_inner())
}
