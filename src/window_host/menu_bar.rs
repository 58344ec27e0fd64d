//! The window process's second platform seam (after `webview.rs`): on macOS it makes the
//! menus `main_menu.rs` decides into the application's main menu and sets the activation
//! policy; elsewhere it does nothing.
//!
//! Read in the crates' macOS sources before calling them: muda 0.21.2's `Menu::init_for_nsapp`
//! is `[NSApp setMainMenu:]` (`src/platform_impl/macos/mod.rs:168-172`), each menu and item
//! must be made on the main thread (`MainThreadMarker::new().expect(…)`, lines 125, 659, 709),
//! `Submenu::set_as_windows_menu_for_nsapp` only after `init_for_nsapp`
//! (`src/items/submenu.rs:340-355`), and dropping the last `Menu` handle takes it off NSApp
//! again (`src/items/menu.rs:46`, `destroy`), so the caller keeps [`MainMenu`] for the event
//! loop's life. NSApp exists once tao's `EventLoop` is built (tao 0.37,
//! `src/platform_impl/macos/event_loop.rs:166-174`, `sharedApplication` on the main thread);
//! tao makes no main menu of its own, and applies the activation policy set here at
//! `applicationDidFinishLaunching` (`app_state.rs:447-460`).

#[cfg(target_os = "macos")]
use crate::main_menu::Item;
use crate::main_menu::Menu;

/// The installed main menu: keep it while the window is open.
pub struct MainMenu {
    #[cfg(target_os = "macos")]
    _menu: muda::Menu,
}

/// On macOS: `menus` become the main menu, and the policy is Regular (`main_menu.rs` says
/// why). Call on the main thread, after `event_loop` is built and before it runs.
///
/// # Errors
/// muda's, as text, when an item cannot be added to its menu.
pub fn install<T: 'static>(
    event_loop: &mut tao::event_loop::EventLoop<T>,
    menus: &[Menu],
) -> Result<MainMenu, String> {
    #[cfg(target_os = "macos")]
    {
        use tao::platform::macos::{ActivationPolicy, EventLoopExtMacOS};
        event_loop.set_activation_policy(ActivationPolicy::Regular);
        let bar = muda::Menu::new();
        let mut windows_menu = None;
        for menu in menus {
            let submenu = muda::Submenu::new(menu.title, true);
            for entry in &menu.entries {
                submenu
                    .append(&predefined(entry.item, entry.text))
                    .map_err(|e| format!("menu item {:?}: {e}", entry.item))?;
            }
            bar.append(&submenu)
                .map_err(|e| format!("menu {}: {e}", menu.title))?;
            if menu.windows_menu {
                windows_menu = Some(submenu);
            }
        }
        bar.init_for_nsapp();
        if let Some(submenu) = windows_menu {
            submenu.set_as_windows_menu_for_nsapp();
        }
        Ok(MainMenu { _menu: bar })
    }
    #[cfg(not(target_os = "macos"))]
    {
        let _ = (event_loop, menus);
        Ok(MainMenu {})
    }
}

/// muda's predefined item for `item`, titled `text`.
#[cfg(target_os = "macos")]
fn predefined(item: Item, text: &str) -> muda::PredefinedMenuItem {
    use muda::PredefinedMenuItem as Predefined;
    let text = Some(text);
    match item {
        Item::About => Predefined::about(text, None),
        Item::Hide => Predefined::hide(text),
        Item::HideOthers => Predefined::hide_others(text),
        Item::ShowAll => Predefined::show_all(text),
        Item::Quit => Predefined::quit(text),
        Item::Undo => Predefined::undo(text),
        Item::Redo => Predefined::redo(text),
        Item::Cut => Predefined::cut(text),
        Item::Copy => Predefined::copy(text),
        Item::Paste => Predefined::paste(text),
        Item::SelectAll => Predefined::select_all(text),
        Item::Minimize => Predefined::minimize(text),
        Item::CloseWindow => Predefined::close_window(text),
        Item::Separator => Predefined::separator(),
    }
}
