//! The overlay as a wlr layer-shell surface, by hand: opens the app's `LayerOverlay` on the
//! compositor at `WAYLAND_DISPLAY`, shows one rendered frame (recording, a few words), keeps it
//! on screen for a while, hides it, shows it again, and ends. Take a screenshot meanwhile
//! (`grim`) to see it at the bottom (or top) centre, 64 px from the edge. Prints each step; the
//! log says "overlay: layer surface configured" when the compositor has configured it.
//!
//!     WAYLAND_DISPLAY=wayland-1 cargo run --release --example layer_overlay -- [--top] [--seconds N (5)]

use std::time::Duration;

use whisper_dictation::app::overlay::render::{Renderer, HEIGHT, WIDTH};
use whisper_dictation::app::overlay::view::{Phase, View};
use whisper_dictation::app::overlay::window::to_argb;
use whisper_dictation::i18n::UiLang;
use whisper_dictation::platform::layer_surface::{Edge, Frame, LayerOverlay};

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let edge = if args.iter().any(|a| a == "--top") {
        Edge::Top
    } else {
        Edge::Bottom
    };
    let seconds: u64 = args
        .iter()
        .position(|a| a == "--seconds")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);

    let overlay = LayerOverlay::open(edge, (WIDTH as u32, HEIGHT as u32), 64)?;
    let scale = overlay.scale();
    let view = View {
        lang: UiLang::En,
        phase: Phase::Recording,
        elapsed: Duration::from_secs(3),
        max_length: Duration::from_secs(120),
        warn_before: Duration::from_secs(10),
        level: 0.6,
        committed: "The overlay on a layer surface".into(),
        tentative: "over every window".into(),
        mode: String::new(),
    };
    let pixmap = Renderer::new()?.render(&view, scale as f32)?;
    let frame = Frame {
        argb: to_argb(&pixmap),
        width: pixmap.width(),
        height: pixmap.height(),
        scale,
    };
    overlay.show(frame.clone())?;
    println!(
        "shown: {}x{} pixels at scale {scale}",
        frame.width, frame.height
    );
    std::thread::sleep(Duration::from_secs(seconds));
    overlay.hide()?;
    println!("hidden");
    std::thread::sleep(Duration::from_secs(1));
    overlay.show(frame)?;
    println!("shown again");
    std::thread::sleep(Duration::from_secs(seconds));
    {
        // Dropped here: the surface is destroyed and its thread joined (on Linux).
        let _closing = overlay;
    }
    println!("closed");
    Ok(())
}
