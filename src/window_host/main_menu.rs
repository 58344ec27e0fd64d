//! What the window process shows in macOS's menu bar, and why it has a Dock tile: decided here
//! for every OS (and tested on Linux); `menu_bar.rs` hands it to AppKit on macOS, and on Linux
//! nothing changes (GTK's entries already take Ctrl+C, Ctrl+V and the rest).
//!
//! **The menus.** Without a main menu, AppKit has nowhere to send ⌘C, ⌘V, ⌘X, ⌘A, ⌘Z, ⇧⌘Z,
//! ⌘W and ⌘Q: tao makes none, and wry's WKWebView hands key equivalents on to the main menu, so
//! in the History search, the vocabulary and the prompt fields those keys did nothing. The
//! window gets the three menus a Mac window has ([`window_menu`]), made of muda's predefined
//! items: each is an `NSMenuItem` with the standard key equivalent and the standard action sent
//! to the first responder (muda 0.21.2, `src/items/predefined.rs` `accelerator()`,
//! `src/platform_impl/macos/mod.rs:952-979` `selector()`): `copy:`, `paste:`, `cut:`,
//! `selectAll:`, `undo:` and `redo:` reach the web view's focused field, `performClose:` and
//! `performMiniaturize:` the window, `hide:` and `terminate:` the application.
//!
//! **⌘Q** ends this process, the window's (AppKit's `terminate:`), as the Dock tile's Quit
//! does; the app in the menu bar goes on dictating. Its title says so instead of "Quit
//! Whisper Dictation".
//!
//! **The activation policy: Regular** (a Dock tile while the window is open), which tao sets by
//! default; `menu_bar.rs` sets it explicitly. The app itself is a menu-bar app (Accessory,
//! `LSUIElement`), but this window is one the person works in: they copy a text from History,
//! switch to another app to paste it, and come back — with Regular the window is in ⌘Tab and
//! in the Dock, with Accessory it could only be found again through the menu-bar icon
//! (History…) or Mission Control. While it is in front, the menu bar shows its menus
//! ("Whisper Dictation", Edit, Window), where an Accessory app shows none. The Dock tile
//! (the bundle's icon: the window program lives in the same bundle, `Contents/MacOS`) appears
//! when the window opens and goes when it closes, since the process ends with the window.

/// The language of the menus: the app's (`OpenWindow::lang`).
pub use crate::host_link::Lang;

/// One of muda's predefined items (the seam makes each with `PredefinedMenuItem::…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    About,
    Hide,
    HideOthers,
    ShowAll,
    Quit,
    Undo,
    Redo,
    Cut,
    Copy,
    Paste,
    SelectAll,
    Minimize,
    CloseWindow,
    Separator,
}

/// An item with its title.
#[derive(Debug, Clone, PartialEq, Eq)]
// Read by menu_bar.rs on macOS only (and by the tests).
#[allow(dead_code)]
pub struct Entry {
    pub item: Item,
    /// Empty for a separator.
    pub text: &'static str,
}

/// One menu of the menu bar.
#[derive(Debug, Clone, PartialEq, Eq)]
// Read by menu_bar.rs on macOS only (and by the tests).
#[allow(dead_code)]
pub struct Menu {
    /// AppKit shows the application's name as the first menu's title, whatever this says.
    pub title: &'static str,
    pub entries: Vec<Entry>,
    /// It is the Window menu (`setWindowsMenu:`): AppKit adds the open windows to it.
    pub windows_menu: bool,
}

/// The application's name, as the bundle's Info.plist gives it (`CFBundleName`).
const APP_NAME: &str = "Whisper Dictation";

/// The window's menus: the application menu (About, Hide, Hide Others, Show All, and ⌘Q,
/// which closes this window), Edit (Undo, Redo, Cut, Copy, Paste, Select All) and Window
/// (Minimize, Close Window), titled in `lang` as macOS titles them.
pub fn window_menu(lang: Lang) -> Vec<Menu> {
    let pl = lang == Lang::Pl;
    let t = |polish: &'static str, english: &'static str| if pl { polish } else { english };
    let entry = |item: Item, text: &'static str| Entry { item, text };
    let separator = || entry(Item::Separator, "");
    vec![
        Menu {
            title: APP_NAME,
            entries: vec![
                entry(
                    Item::About,
                    t("O programie Whisper Dictation", "About Whisper Dictation"),
                ),
                separator(),
                entry(
                    Item::Hide,
                    t("Ukryj Whisper Dictation", "Hide Whisper Dictation"),
                ),
                entry(Item::HideOthers, t("Ukryj pozostałe", "Hide Others")),
                entry(Item::ShowAll, t("Pokaż wszystko", "Show All")),
                separator(),
                entry(
                    Item::Quit,
                    t(
                        "Zamknij historię i ustawienia",
                        "Close History and Settings",
                    ),
                ),
            ],
            windows_menu: false,
        },
        Menu {
            title: t("Edycja", "Edit"),
            entries: vec![
                entry(Item::Undo, t("Cofnij", "Undo")),
                entry(Item::Redo, t("Przywróć", "Redo")),
                separator(),
                entry(Item::Cut, t("Wytnij", "Cut")),
                entry(Item::Copy, t("Kopiuj", "Copy")),
                entry(Item::Paste, t("Wklej", "Paste")),
                entry(Item::SelectAll, t("Zaznacz wszystko", "Select All")),
            ],
            windows_menu: false,
        },
        Menu {
            title: t("Okno", "Window"),
            entries: vec![
                entry(Item::Minimize, t("Minimalizuj", "Minimize")),
                entry(Item::CloseWindow, t("Zamknij okno", "Close Window")),
            ],
            windows_menu: true,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Item {
        /// The key equivalent muda 0.21.2 gives the item on macOS (`src/items/predefined.rs`,
        /// `PredefinedMenuItemType::accelerator`, its arms for macOS; `CMD_OR_CTRL` is ⌘
        /// there).
        fn key_equivalent(self) -> Option<&'static str> {
            Some(match self {
                Item::Copy => "⌘C",
                Item::Cut => "⌘X",
                Item::Paste => "⌘V",
                Item::Undo => "⌘Z",
                Item::Redo => "⇧⌘Z",
                Item::SelectAll => "⌘A",
                Item::Minimize => "⌘M",
                Item::Hide => "⌘H",
                Item::HideOthers => "⌥⌘H",
                Item::CloseWindow => "⌘W",
                Item::Quit => "⌘Q",
                Item::About | Item::ShowAll | Item::Separator => return None,
            })
        }
    }

    fn keys(menus: &[Menu]) -> Vec<&'static str> {
        menus
            .iter()
            .flat_map(|menu| &menu.entries)
            .filter_map(|entry| entry.item.key_equivalent())
            .collect()
    }

    #[test]
    fn every_standard_key_of_a_mac_window_has_its_item_in_both_languages() {
        for lang in [Lang::Pl, Lang::En] {
            let menus = window_menu(lang);
            let keys = keys(&menus);
            for key in ["⌘C", "⌘V", "⌘X", "⌘A", "⌘Z", "⇧⌘Z", "⌘W", "⌘Q"] {
                assert_eq!(
                    keys.iter().filter(|k| **k == key).count(),
                    1,
                    "{key} in {lang:?}: {keys:?}"
                );
            }
            // Every item but a separator has a title.
            for entry in menus.iter().flat_map(|m| &m.entries) {
                assert_eq!(
                    entry.text.is_empty(),
                    entry.item == Item::Separator,
                    "{entry:?}"
                );
            }
        }
    }

    #[test]
    fn the_menus_are_the_app_menu_edit_and_window_titled_in_the_apps_language() {
        let titles = |lang| {
            window_menu(lang)
                .iter()
                .map(|m| m.title)
                .collect::<Vec<_>>()
        };
        assert_eq!(titles(Lang::En), ["Whisper Dictation", "Edit", "Window"]);
        assert_eq!(titles(Lang::Pl), ["Whisper Dictation", "Edycja", "Okno"]);
        let edit: Vec<Item> = window_menu(Lang::Pl)[1]
            .entries
            .iter()
            .map(|e| e.item)
            .collect();
        assert_eq!(
            edit,
            [
                Item::Undo,
                Item::Redo,
                Item::Separator,
                Item::Cut,
                Item::Copy,
                Item::Paste,
                Item::SelectAll
            ]
        );
        // Only the Window menu is AppKit's Windows menu.
        let windows: Vec<bool> = window_menu(Lang::En)
            .iter()
            .map(|m| m.windows_menu)
            .collect();
        assert_eq!(windows, [false, false, true]);
        // ⌘Q closes this window's process, and its title says that, not "Quit".
        let quit = |lang| {
            window_menu(lang)[0]
                .entries
                .iter()
                .find(|e| e.item == Item::Quit)
                .unwrap()
                .text
        };
        assert_eq!(quit(Lang::En), "Close History and Settings");
        assert_eq!(quit(Lang::Pl), "Zamknij historię i ustawienia");
    }

    #[test]
    fn the_language_is_the_one_the_app_sends() {
        // What the app sends is what the window reads; an app before the field, or a language
        // this window does not know, gives English.
        let line = r#"{"to_window":"open","version":1,"title":"Historia","lang":"pl","url":"app://localhost/pl/index.html","size":[760.0,600.0],"min_size":[420.0,320.0],"data_dir":null,"incognito":false,"automation":false,"scheme":"app","origin":"app://localhost/","csp":"","assets":[]}"#;
        let lang_of = |line: &str| match serde_json::from_str(line) {
            Ok(crate::host_link::ToWindow::Open(open)) => open.lang,
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(lang_of(line), Lang::Pl);
        assert_eq!(lang_of(&line.replace(r#""lang":"pl","#, "")), Lang::En);
        assert_eq!(
            lang_of(&line.replace(r#""lang":"pl""#, r#""lang":"de""#)),
            Lang::En
        );
        assert_eq!(window_menu(lang_of(line))[1].title, "Edycja");
    }
}
