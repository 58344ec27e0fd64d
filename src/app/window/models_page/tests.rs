use super::*;
use crate::app::window::ipc::ModelAction;
use std::cell::RefCell;
use std::fs;
use std::rc::Rc;

fn parse(body: &str) -> Command {
    super::super::ipc::parse("app://localhost/pl/index.html", body).unwrap()
}

/// A models folder with `names` installed (folders with one file each).
fn folder(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        fs::create_dir(dir.path().join(name)).unwrap();
        fs::write(dir.path().join(name).join("model.bin"), b"weights").unwrap();
    }
    dir
}

#[test]
fn the_page_s_commands_parse_and_go_to_the_app_as_requests() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&sent);
    let mut session = ModelsSession {
        request: Box::new(move |r| sink.borrow_mut().push(r)),
    };
    for body in [
        r#"{"cmd":"model_list"}"#,
        r#"{"cmd":"download","model":"tiny.en"}"#,
        r#"{"cmd":"cancel_download"}"#,
        r#"{"cmd":"verify","model":"base"}"#,
        r#"{"cmd":"remove_model","model":"tiny.en"}"#,
        r#"{"cmd":"use_model","model":"base"}"#,
    ] {
        let command = parse(body);
        assert!(ModelsSession::owns(&command), "{body}");
        session.handle(&command);
    }
    assert_eq!(
        *sent.borrow(),
        vec![
            ModelRequest::List,
            ModelRequest::Download("tiny.en".into()),
            ModelRequest::Cancel,
            ModelRequest::Verify("base".into()),
            ModelRequest::Remove("tiny.en".into()),
            ModelRequest::Use("base".into()),
        ]
    );
    // Not the page's: the history's own model list, and the settings.
    assert!(!ModelsSession::owns(&parse(r#"{"cmd":"models"}"#)));
    assert!(!ModelsSession::owns(&parse(r#"{"cmd":"settings"}"#)));
    let bad = |body| super::super::ipc::parse("app://localhost/en/index.html", body);
    for body in [
        r#"{"cmd":"download"}"#,
        r#"{"cmd":"download","model":3}"#,
        r#"{"cmd":"remove_model","model":"x","force":true}"#,
        r#"{"cmd":"model_list","x":1}"#,
    ] {
        assert!(bad(body).is_err(), "{body}");
    }
    assert_eq!(
        bad(r#"{"cmd":"page","page":"models"}"#).unwrap(),
        Command::Page {
            page: super::super::Page::Models
        }
    );
}

#[test]
fn rows_list_the_catalogue_then_own_folders_with_the_model_in_use_and_the_suggestion() {
    let dir = folder(&["base", "my-finetune"]);
    let Reply::ModelList {
        models,
        folder,
        downloading,
    } = list_reply(Some(dir.path()), "base", "small", None, UiLang::Pl)
    else {
        panic!()
    };
    assert_eq!(folder, dir.path().display().to_string());
    assert_eq!(downloading, None);
    assert_eq!(models.len(), models::CATALOGUE.len() + 1);
    assert_eq!(models[0].name, "tiny");
    let base = models.iter().find(|m| m.name == "base").unwrap();
    assert!(base.installed && base.current && !base.suggested && base.downloadable);
    assert_eq!(base.size.as_deref(), Some("148 MB"));
    assert_eq!(base.memory.as_deref(), Some("596 MB"));
    assert_eq!(base.languages, Some("99 języków"));
    assert_eq!(
        base.advice,
        Some("szybki na każdym procesorze; dobry po angielsku, znośny po polsku")
    );
    let small = models.iter().find(|m| m.name == "small").unwrap();
    assert!(small.suggested && !small.installed && !small.current);
    let own = models.last().unwrap();
    assert_eq!(own.name, "my-finetune");
    assert!(own.installed && !own.downloadable && own.size.is_none() && own.advice.is_none());
    assert_eq!(models.iter().filter(|m| m.current).count(), 1);
    let en = rows(&models::statuses(dir.path()), "base", "small", UiLang::En);
    assert_eq!(en[1].languages, Some("English only"));
    assert_eq!(en[1].advice, Some("fastest, English only"));
    // The page reads these fields (assets/ui/models.js).
    let json = serde_json::to_value(list_reply(
        Some(dir.path()),
        "base",
        "small",
        Some(DownloadShown {
            model: "small".into(),
            stage: "downloading",
            percent: 42,
        }),
        UiLang::En,
    ))
    .unwrap();
    assert_eq!(json["kind"], "model_list");
    assert_eq!(json["downloading"]["percent"], 42);
    assert_eq!(json["models"][2]["name"], "base");
    assert_eq!(json["models"][2]["current"], true);
    let done = serde_json::to_value(Reply::ModelDone {
        model: "base".into(),
        action: ModelAction::Verify,
        ok: true,
        detail: "loads".into(),
    })
    .unwrap();
    assert_eq!(
        done,
        serde_json::json!({"kind":"model_done","model":"base","action":"verify","ok":true,"detail":"loads"})
    );
}

#[test]
fn a_removal_is_refused_for_the_model_in_use_a_download_and_anything_not_installed() {
    let installed = vec!["base".to_string(), "tiny.en".to_string()];
    assert_eq!(check_remove("tiny.en", &installed, "base", None), Ok(()));
    assert_eq!(
        check_remove("base", &installed, "base", None),
        Err(Refusal::InUse {
            model: "base".into()
        })
    );
    assert_eq!(
        check_remove("tiny.en", &installed, "base", Some("tiny.en")),
        Err(Refusal::Busy {
            model: "tiny.en".into()
        })
    );
    for name in [
        "",
        "..",
        "../base",
        "/etc",
        "small",
        "base/",
        "tiny.en.partial.x",
    ] {
        assert!(
            matches!(
                check_remove(name, &installed, "base", None),
                Err(Refusal::Unknown { .. })
            ),
            "{name}"
        );
    }
    assert!(check_download("tiny.en", None).is_ok());
    assert_eq!(
        check_download("tiny.en", Some("small")).err(),
        Some(Refusal::Busy {
            model: "small".into()
        })
    );
    assert!(matches!(
        check_download("huge", None),
        Err(Refusal::Unknown { .. })
    ));
}

#[test]
fn remove_deletes_only_the_folder_inside_the_models_folder() {
    let dir = folder(&["base", "tiny.en"]);
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("keep.bin"), b"mine").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();

    assert!(matches!(
        remove_installed(dir.path(), "base", "base", None),
        Err(Refusal::InUse { .. })
    ));
    assert!(matches!(
        remove_installed(dir.path(), "../x", "base", None),
        Err(Refusal::Unknown { .. })
    ));
    let removed = remove_installed(dir.path(), "tiny.en", "base", None).unwrap();
    assert_eq!(removed, dir.path().join("tiny.en"));
    assert!(!removed.exists());
    assert!(dir.path().join("base/model.bin").is_file());
    // A link to a folder elsewhere: the link goes, what it points to stays.
    remove_installed(dir.path(), "linked", "base", None).unwrap();
    assert!(!dir.path().join("linked").exists());
    assert!(outside.path().join("keep.bin").is_file());
    assert_eq!(crate::paths::installed_models(dir.path()), vec!["base"]);
}

#[test]
fn verify_says_what_it_found_and_refuses_what_is_not_installed() {
    let dir = folder(&["broken"]);
    let found = verify_installed(dir.path(), "broken", UiLang::En).unwrap_err();
    assert!(
        found.starts_with("no manifest (installed by the set-up or by hand); does NOT load:"),
        "{found}"
    );
    assert_eq!(
        verify_installed(dir.path(), "base", UiLang::Pl).unwrap_err(),
        "„base” nie jest zainstalowany."
    );
}
