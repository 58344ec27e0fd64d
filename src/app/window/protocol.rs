//! The History window's pages: bundled in the binary, handed to the window process
//! ([`bundle`]), which serves them through the `app://` custom protocol, never from the
//! network or `file://`. Every answer carries the strict content-security
//! policy ([`CSP`]), which the page repeats in a `<meta>` tag; any other path is a 404, and
//! only the window's own origin may be navigated to ([`may_navigate`]).

use crate::i18n::UiLang;
use std::borrow::Cow;

/// The custom protocol's scheme.
pub const SCHEME: &str = "app";
/// The origin every page and asset comes from (WebKitGTK and WKWebView both use
/// `<scheme>://<host>` for a custom protocol).
pub const ORIGIN: &str = "app://localhost/";

/// Nothing but the bundled script and style sheet: no inline script, no eval, no network,
/// no frames, no forms. The IPC (`window.ipc.postMessage`) is a script message, not a fetch,
/// so `connect-src` stays `'none'`.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
     connect-src 'none'; font-src 'none'; object-src 'none'; frame-src 'none'; \
     frame-ancestors 'none'; form-action 'none'; base-uri 'none'";

const INDEX_HTML: &str = include_str!("../../../assets/ui/index.html");
const STYLE_CSS: &str = include_str!("../../../assets/ui/style.css");
const APP_JS: &str = include_str!("../../../assets/ui/app.js");
const SETTINGS_JS: &str = include_str!("../../../assets/ui/settings.js");
const MODELS_JS: &str = include_str!("../../../assets/ui/models.js");
const MODES_JS: &str = include_str!("../../../assets/ui/modes.js");
/// The files of each language's folder.
const FILES: [&str; 7] = [
    "index.html",
    "style.css",
    "app.js",
    "labels.js",
    "modes.js",
    "settings.js",
    "models.js",
];

/// Whether `url` is one of the window's own pages.
pub fn is_own_url(url: &str) -> bool {
    url.starts_with(ORIGIN)
}

/// The navigation handler's decision: the window's own pages only (a link, a drop, a
/// `location = …` to anything else is refused).
pub fn may_navigate(url: &str) -> bool {
    is_own_url(url)
}

/// An answer of the protocol: status, content type and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Cow<'static, [u8]>,
}

/// The page the window opens, in the UI language `lang`: `app://localhost/<lang>/index.html`
/// (its style sheet and scripts are relative to it, so they come in the same language).
pub fn start_url(lang: UiLang) -> String {
    format!("{ORIGIN}{}/index.html", super::texts::labels(lang).lang)
}

/// What the protocol answers for `path`, the URL's path: `/<lang>/<file>`.
pub fn asset(path: &str) -> Asset {
    let (lang, file) = match path.strip_prefix("/pl/") {
        Some(file) => (UiLang::Pl, file),
        None => (UiLang::En, path.strip_prefix("/en/").unwrap_or("")),
    };
    let found = |content_type, body: Cow<'static, [u8]>| Asset {
        status: 200,
        content_type,
        body,
    };
    match file {
        "index.html" => found(
            "text/html; charset=utf-8",
            Cow::Owned(index_html(lang).into_bytes()),
        ),
        "style.css" => found(
            "text/css; charset=utf-8",
            Cow::Borrowed(STYLE_CSS.as_bytes()),
        ),
        "app.js" => found(
            "text/javascript; charset=utf-8",
            Cow::Borrowed(APP_JS.as_bytes()),
        ),
        "labels.js" => found(
            "text/javascript; charset=utf-8",
            Cow::Owned(
                (super::texts::labels_script(lang)
                    + &super::settings_texts::labels_script(lang)
                    + &super::models_texts::labels_script(lang)
                    + &super::modes_texts::labels_script(lang))
                    .into_bytes(),
            ),
        ),
        "settings.js" => found(
            "text/javascript; charset=utf-8",
            Cow::Borrowed(SETTINGS_JS.as_bytes()),
        ),
        "models.js" => found(
            "text/javascript; charset=utf-8",
            Cow::Borrowed(MODELS_JS.as_bytes()),
        ),
        "modes.js" => found(
            "text/javascript; charset=utf-8",
            Cow::Borrowed(MODES_JS.as_bytes()),
        ),
        _ => Asset {
            status: 404,
            content_type: "text/plain; charset=utf-8",
            body: Cow::Borrowed(b"not found"),
        },
    }
}

/// The page with its language set (`<html lang="…">` and the title).
fn index_html(lang: UiLang) -> String {
    let labels = super::texts::labels(lang);
    INDEX_HTML
        .replace("{{lang}}", labels.lang)
        .replace("{{title}}", labels.title)
        .replace("{{csp}}", CSP)
}

/// Everything the window process serves: every file in both languages (the page's language
/// can change while the window is open). About 0.2 MB of text, written once per open.
pub fn bundle() -> Vec<super::host_link::Asset> {
    ["en", "pl"]
        .iter()
        .flat_map(|lang| FILES.iter().map(move |file| format!("/{lang}/{file}")))
        .map(|path| {
            let found = asset(&path);
            super::host_link::Asset {
                content_type: found.content_type.to_string(),
                body: String::from_utf8_lossy(&found.body).into_owned(),
                path,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_the_bundled_ui_and_nothing_else() {
        for lang in ["en", "pl"] {
            for file in FILES {
                let path = format!("/{lang}/{file}");
                assert_eq!(asset(&path).status, 200, "{path}");
            }
        }
        let bundle = bundle();
        assert_eq!(bundle.len(), 2 * FILES.len());
        for served in &bundle {
            let asset = asset(&served.path);
            assert_eq!(served.body.as_bytes(), &*asset.body, "{}", served.path);
            assert_eq!(served.content_type, asset.content_type);
        }
        for path in [
            "/",
            "/index.html",
            "/en/../Cargo.toml",
            "/pl/../../etc/passwd",
            "/de/index.html",
            "/en/index.htm",
            "",
            "/en/app.js?x",
            "/en/",
        ] {
            assert_eq!(asset(path).status, 404, "{path}");
        }
        assert_eq!(start_url(UiLang::Pl), "app://localhost/pl/index.html");
        assert!(is_own_url(&start_url(UiLang::En)));
    }

    #[test]
    fn the_page_has_its_language_and_the_policy_and_no_inline_script() {
        let page = String::from_utf8(asset("/pl/index.html").body.into_owned()).unwrap();
        assert!(page.contains(r#"<html lang="pl">"#), "{page}");
        assert!(page.contains("<title>Historia</title>"), "{page}");
        assert!(page.contains(CSP));
        assert!(!page.contains("{{"), "a placeholder left: {page}");
        // Every script is a bundled file; an inline one would be refused by the policy anyway.
        for (at, _) in page.match_indices("<script") {
            let tag = &page[at..at + page[at..].find('>').unwrap()];
            assert!(
                tag.contains(r#"src="labels.js""#)
                    || tag.contains(r#"src="app.js""#)
                    || tag.contains(r#"src="modes.js""#)
                    || tag.contains(r#"src="settings.js""#)
                    || tag.contains(r#"src="models.js""#),
                "{tag}"
            );
        }
        for handler in [" onclick=", " oninput=", " onload=", " onerror="] {
            assert!(!page.contains(handler), "inline handler {handler}");
        }
        for script in [APP_JS, SETTINGS_JS, MODELS_JS] {
            assert!(!script.contains("eval(") && !script.contains("new Function"));
            assert!(
                !script.contains("innerHTML"),
                "text is set as text, never parsed as HTML"
            );
        }
    }

    #[test]
    fn the_policy_allows_only_the_bundle() {
        assert!(CSP.starts_with("default-src 'none'"));
        assert!(!CSP.contains("unsafe-inline") && !CSP.contains("unsafe-eval"));
        assert!(CSP.contains("connect-src 'none'"));
    }

    #[test]
    fn navigation_stays_on_the_window_s_own_pages() {
        assert!(may_navigate("app://localhost/index.html"));
        for url in [
            "https://example.com/",
            "file:///etc/passwd",
            "about:blank",
            "app://elsewhere/index.html",
            "app:/localhost/",
            "data:text/html,hi",
            "javascript:alert(1)",
        ] {
            assert!(!may_navigate(url), "{url}");
        }
    }
}
