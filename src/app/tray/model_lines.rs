//! The Model menu's lines, a pure function of what is installed, the running download and the
//! armed entry ([`model_menu_lines`]); the tray only turns them into items
//! (`Tray::set_model_menu`).

use super::MenuAction;
use crate::app::texts::model_menu;
use crate::i18n::UiLang;

/// What the Model menu shows, besides the settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelMenuView<'a> {
    /// Installed model folders.
    pub installed: &'a [String],
    /// The settings' model (shown even when not installed, so the choice is visible).
    pub current: &'a str,
    /// The catalogue model suggested for this machine ("" for none).
    pub suggested: &'a str,
    /// A running download: (model, stage name, percent).
    pub running: Option<(&'a str, &'a str, u8)>,
    /// The download entry waiting for its confirming click.
    pub armed: Option<&'a str>,
    /// An installed catalogue model that failed to load (offered again).
    pub failed: Option<&'a str>,
}

/// One line of the Model menu, before it becomes a menu item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuLine {
    /// A radio item choosing an installed model.
    Choice {
        value: String,
        label: String,
    },
    Item {
        id: Option<String>,
        label: String,
        enabled: bool,
        /// Its text is the running download's progress.
        shows_progress: bool,
    },
    Separator,
}

/// The Model menu's lines and the "Download a model" submenu's lines, a pure function of the
/// view (the tray only turns them into items).
pub fn model_menu_lines(lang: UiLang, view: &ModelMenuView) -> (Vec<MenuLine>, Vec<MenuLine>) {
    use crate::models::catalogue::{human_bytes, CATALOGUE};
    let mut top: Vec<MenuLine> = view
        .installed
        .iter()
        .map(|m| m.as_str())
        .chain(
            (!view.current.is_empty() && !view.installed.iter().any(|m| m == view.current))
                .then_some(view.current),
        )
        .map(|m| MenuLine::Choice {
            value: m.to_string(),
            label: m.to_string(),
        })
        .collect();
    let progress_text =
        |(name, stage, percent): (&str, &str, u8)| model_menu::progress(lang, name, stage, percent);
    if let Some(running) = view.running {
        top.push(MenuLine::Separator);
        top.push(MenuLine::Item {
            id: None,
            label: progress_text(running),
            enabled: false,
            shows_progress: true,
        });
        top.push(MenuLine::Item {
            id: Some(MenuAction::CancelDownload.id()),
            label: model_menu::cancel(lang).to_string(),
            enabled: true,
            shows_progress: false,
        });
    } else if let Some(entry) = view.failed.and_then(crate::models::find) {
        top.push(MenuLine::Separator);
        top.push(MenuLine::Item {
            id: Some(MenuAction::RedownloadModel(entry.name.into()).id()),
            label: model_menu::redownload(lang, entry.name, &human_bytes(entry.download_bytes)),
            enabled: true,
            shows_progress: false,
        });
    }
    let polish = lang == UiLang::Pl;
    let mut downloads: Vec<MenuLine> = CATALOGUE
        .iter()
        .filter(|e| !view.installed.iter().any(|m| m == e.name))
        .map(|e| {
            let size = human_bytes(e.download_bytes);
            let running_this = view.running.filter(|(name, ..)| *name == e.name);
            let label = match (running_this, view.armed == Some(e.name)) {
                (Some(running), _) => progress_text(running),
                (None, true) => model_menu::confirm(lang, e.name, &size),
                (None, false) => model_menu::entry(
                    lang,
                    e.name,
                    &size,
                    e.advice(polish),
                    e.name == view.suggested,
                ),
            };
            MenuLine::Item {
                id: Some(MenuAction::DownloadModel(e.name.into()).id()),
                label,
                enabled: view.running.is_none(),
                shows_progress: running_this.is_some(),
            }
        })
        .collect();
    if downloads.is_empty() {
        downloads.push(MenuLine::Item {
            id: None,
            label: model_menu::all_installed(lang).to_string(),
            enabled: false,
            shows_progress: false,
        });
    }
    (top, downloads)
}

#[cfg(test)]
mod tests {
    use super::*;
    fn labels_of(lines: &[MenuLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| match l {
                MenuLine::Choice { label, .. } | MenuLine::Item { label, .. } => label.clone(),
                MenuLine::Separator => "---".into(),
            })
            .collect()
    }

    #[test]
    fn the_model_menu_lists_installed_models_and_offers_the_rest() {
        let installed = [
            "base".to_string(),
            "tiny.en".to_string(),
            "mine".to_string(),
        ];
        let view = ModelMenuView {
            installed: &installed,
            current: "base",
            suggested: "small",
            ..ModelMenuView::default()
        };
        let (top, downloads) = model_menu_lines(UiLang::En, &view);
        assert_eq!(labels_of(&top), ["base", "tiny.en", "mine"]);
        let offered = labels_of(&downloads);
        assert_eq!(offered.len(), crate::models::CATALOGUE.len() - 2);
        assert!(offered
            .iter()
            .all(|l| !l.starts_with("base ") && !l.starts_with("tiny.en ")));
        let small = offered.iter().find(|l| l.starts_with("small ")).unwrap();
        assert!(
            small.contains("487 MB") && small.contains("suggested"),
            "{small}"
        );
        assert!(downloads.iter().all(
            |l| matches!(l, MenuLine::Item { enabled: true, id: Some(id), .. }
            if MenuAction::parse(id).is_some())
        ));

        // Armed: the entry asks for the second click.
        let (_, downloads) = model_menu_lines(
            UiLang::Pl,
            &ModelMenuView {
                armed: Some("small"),
                ..view
            },
        );
        assert!(labels_of(&downloads)
            .iter()
            .any(|l| l.contains("Kliknij ponownie, aby pobrać small (487 MB)")));

        // Running: percent in the menu and on the entry, Cancel offered, other entries disabled.
        let running = ModelMenuView {
            running: Some(("small", "downloading", 42)),
            ..view
        };
        let (top, downloads) = model_menu_lines(UiLang::En, &running);
        assert_eq!(
            labels_of(&top)[3..],
            ["---", "Downloading small: 42 %", "&Cancel the download"]
        );
        assert!(top.contains(&MenuLine::Item {
            id: Some("download-cancel".into()),
            label: "&Cancel the download".into(),
            enabled: true,
            shows_progress: false
        }));
        assert!(downloads
            .iter()
            .all(|l| matches!(l, MenuLine::Item { enabled: false, .. })));
        assert_eq!(
            downloads
                .iter()
                .filter(|l| matches!(
                    l,
                    MenuLine::Item {
                        shows_progress: true,
                        ..
                    }
                ))
                .count(),
            1
        );

        // A catalogue model that failed to load is offered again; a folder of one's own is not.
        let (top, _) = model_menu_lines(
            UiLang::En,
            &ModelMenuView {
                failed: Some("base"),
                ..view
            },
        );
        assert!(top.contains(&MenuLine::Item {
            id: Some("redownload:base".into()),
            label: "Download base &again (148 MB)".into(),
            enabled: true,
            shows_progress: false
        }));
        let (top, _) = model_menu_lines(
            UiLang::En,
            &ModelMenuView {
                failed: Some("mine"),
                ..view
            },
        );
        assert_eq!(labels_of(&top), ["base", "tiny.en", "mine"]);

        // The settings' model is shown even when it is not installed.
        let (top, _) = model_menu_lines(
            UiLang::En,
            &ModelMenuView {
                current: "large-v3",
                ..view
            },
        );
        assert_eq!(labels_of(&top).last().unwrap(), "large-v3");
    }
}
