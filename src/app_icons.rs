//! The tray icons, built into the binary: one per app state, in two styles — coloured (a white
//! microphone on a disc whose colour says the state; Linux trays) and template (black with
//! alpha; macOS tints it for the menu bar) — at 1x (32 px) and 2x (64 px), plus the 256 px app
//! icon. This module owns decoding them to RGBA8 for the tray. The PNGs are drawn by
//! `scripts/draw-icons.py`; re-run it and commit the result to change them.

/// What the app is doing, as the icon shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IconState {
    Idle,
    Recording,
    Transcribing,
    Error,
}

impl IconState {
    pub const ALL: [IconState; 4] = [
        IconState::Idle,
        IconState::Recording,
        IconState::Transcribing,
        IconState::Error,
    ];

    /// The colour of the state's disc in the coloured icons (`#RRGGBB` in the script).
    pub fn color(self) -> [u8; 3] {
        match self {
            IconState::Idle => [0x1E, 0x88, 0xE5],
            IconState::Recording => [0xE5, 0x39, 0x35],
            IconState::Transcribing => [0xFB, 0x8C, 0x00],
            IconState::Error => [0x75, 0x75, 0x75],
        }
    }
}

/// How the icon is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IconStyle {
    /// Coloured disc and white microphone: Linux trays, which show icons as they are.
    Color,
    /// Black shapes with alpha: the macOS menu bar, which recolours template images to fit
    /// light and dark menu bars.
    Template,
}

#[derive(Debug, thiserror::Error)]
pub enum IconError {
    #[error("the built-in {name} icon cannot be decoded: {source}")]
    Decode {
        name: &'static str,
        #[source]
        source: png::DecodingError,
    },
    #[error("the built-in {name} icon has an unsupported pixel layout {layout}")]
    Layout { name: &'static str, layout: String },
}

/// The icon for `state` in `style` as RGBA8 pixels, row by row, with its width and height
/// (32×32, or 64×64 when `scale2x`).
///
/// # Errors
/// [`IconError`] if the embedded PNG cannot be decoded (a broken build, not a user error).
pub fn icon_rgba(
    state: IconState,
    style: IconStyle,
    scale2x: bool,
) -> Result<(Vec<u8>, u32, u32), IconError> {
    let (name, bytes) = icon_png(state, style, scale2x);
    decode_rgba(name, bytes)
}

/// The 256×256 coloured app icon as RGBA8, with its width and height.
///
/// # Errors
/// As [`icon_rgba`].
pub fn app_icon_rgba() -> Result<(Vec<u8>, u32, u32), IconError> {
    decode_rgba("app", APP_PNG)
}

/// The 256×256 app icon's PNG bytes (for writing a `.desktop` icon or a bundle).
pub const APP_PNG: &[u8] = include_bytes!("../assets/icons/app.png");

macro_rules! icon {
    ($path:literal) => {
        (
            $path,
            include_bytes!(concat!("../assets/icons/", $path, ".png")),
        )
    };
}

/// The name (for error messages) and PNG bytes of one icon.
fn icon_png(state: IconState, style: IconStyle, scale2x: bool) -> (&'static str, &'static [u8]) {
    use IconState::*;
    use IconStyle::*;
    let (name, bytes): (&'static str, &'static [u8]) = match (style, state, scale2x) {
        (Color, Idle, false) => icon!("color/idle"),
        (Color, Idle, true) => icon!("color/idle@2x"),
        (Color, Recording, false) => icon!("color/recording"),
        (Color, Recording, true) => icon!("color/recording@2x"),
        (Color, Transcribing, false) => icon!("color/transcribing"),
        (Color, Transcribing, true) => icon!("color/transcribing@2x"),
        (Color, Error, false) => icon!("color/error"),
        (Color, Error, true) => icon!("color/error@2x"),
        (Template, Idle, false) => icon!("template/idle"),
        (Template, Idle, true) => icon!("template/idle@2x"),
        (Template, Recording, false) => icon!("template/recording"),
        (Template, Recording, true) => icon!("template/recording@2x"),
        (Template, Transcribing, false) => icon!("template/transcribing"),
        (Template, Transcribing, true) => icon!("template/transcribing@2x"),
        (Template, Error, false) => icon!("template/error"),
        (Template, Error, true) => icon!("template/error@2x"),
    };
    (name, bytes)
}

/// Decodes a PNG of any colour type to 8-bit RGBA.
fn decode_rgba(name: &'static str, bytes: &[u8]) -> Result<(Vec<u8>, u32, u32), IconError> {
    let decode = |source| IconError::Decode { name, source };
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(decode)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| IconError::Layout {
            name,
            layout: "too large".to_string(),
        })?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(decode)?;
    buf.truncate(info.buffer_size());
    if info.bit_depth != png::BitDepth::Eight {
        return Err(IconError::Layout {
            name,
            layout: format!("{:?} {:?}", info.color_type, info.bit_depth),
        });
    }
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&v| [v, v, v, 255]).collect(),
        png::ColorType::Indexed => {
            return Err(IconError::Layout {
                name,
                layout: "indexed colour after expansion".to_string(),
            })
        }
    };
    Ok((rgba, info.width, info.height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const SCALES: [(bool, u32); 2] = [(false, 32), (true, 64)];

    #[test]
    fn every_icon_decodes_at_its_size() {
        for state in IconState::ALL {
            for style in [IconStyle::Color, IconStyle::Template] {
                for (scale2x, side) in SCALES {
                    let (rgba, w, h) = icon_rgba(state, style, scale2x).unwrap();
                    assert_eq!((w, h), (side, side), "{state:?} {style:?} {scale2x}");
                    assert_eq!(rgba.len(), (side * side * 4) as usize);
                    let opaque = rgba.chunks_exact(4).filter(|p| p[3] == 255).count();
                    assert!(
                        opaque > (side * side / 8) as usize,
                        "{state:?} {style:?} blank"
                    );
                }
            }
        }
        let (rgba, w, h) = app_icon_rgba().unwrap();
        assert_eq!((w, h, rgba.len()), (256, 256, 256 * 256 * 4));
    }

    fn dominant_colour(rgba: &[u8]) -> [u8; 3] {
        let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
        for p in rgba.chunks_exact(4) {
            let rgb = [p[0], p[1], p[2]];
            if p[3] == 255 && rgb != [255, 255, 255] {
                *counts.entry(rgb).or_default() += 1;
            }
        }
        counts.into_iter().max_by_key(|&(_, n)| n).unwrap().0
    }

    #[test]
    fn colour_icons_are_dominated_by_the_state_colour() {
        for state in IconState::ALL {
            for (scale2x, _) in SCALES {
                let (rgba, _, _) = icon_rgba(state, IconStyle::Color, scale2x).unwrap();
                assert_eq!(dominant_colour(&rgba), state.color(), "{state:?} {scale2x}");
                // The microphone is white.
                assert!(rgba.chunks_exact(4).any(|p| p == [255, 255, 255, 255]));
            }
        }
        let (app, _, _) = app_icon_rgba().unwrap();
        assert_eq!(dominant_colour(&app), IconState::Idle.color());
        // Only the error icon has the red badge.
        let red = IconState::Recording.color();
        let has_red = |state| {
            let (rgba, _, _) = icon_rgba(state, IconStyle::Color, true).unwrap();
            rgba.chunks_exact(4).any(|p| p[..3] == red && p[3] == 255)
        };
        assert!(has_red(IconState::Error));
        assert!(!has_red(IconState::Idle) && !has_red(IconState::Transcribing));
    }

    #[test]
    fn template_icons_are_black_with_alpha_only() {
        for state in IconState::ALL {
            for (scale2x, _) in SCALES {
                let (rgba, _, _) = icon_rgba(state, IconStyle::Template, scale2x).unwrap();
                assert!(
                    rgba.chunks_exact(4).all(|p| p[..3] == [0, 0, 0]),
                    "{state:?}"
                );
                let alphas: std::collections::HashSet<u8> =
                    rgba.chunks_exact(4).map(|p| p[3]).collect();
                assert!(alphas.contains(&0) && alphas.contains(&255) && alphas.len() > 2);
            }
        }
    }

    #[test]
    fn states_look_different() {
        for style in [IconStyle::Color, IconStyle::Template] {
            let icons: Vec<Vec<u8>> = IconState::ALL
                .iter()
                .map(|&s| icon_rgba(s, style, false).unwrap().0)
                .collect();
            for i in 0..icons.len() {
                for j in i + 1..icons.len() {
                    assert_ne!(icons[i], icons[j], "{style:?} {i} {j}");
                }
            }
        }
    }

    #[test]
    fn other_png_layouts_expand_to_rgba() {
        // A 2x1 grey+alpha PNG written with the png crate's encoder.
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, 2, 1);
            encoder.set_color(png::ColorType::GrayscaleAlpha);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            writer.write_image_data(&[10, 20, 30, 40]).unwrap();
        }
        let (rgba, w, h) = decode_rgba("test", &bytes).unwrap();
        assert_eq!((w, h), (2, 1));
        assert_eq!(rgba, vec![10, 10, 10, 20, 30, 30, 30, 40]);
        let err = decode_rgba("broken", b"not a png").unwrap_err();
        assert!(err.to_string().contains("broken"), "{err}");
    }
}
