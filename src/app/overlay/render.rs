//! Draws a [`View`] into pixels: a dark panel with the state (a coloured dot and a label), the
//! time, the microphone level meter and up to two lines of words (committed words in full colour,
//! the tentative tail dimmed, laid out by [`super::layout`]), with the bundled DejaVu Sans
//! (it covers Polish, the rest of Latin, Greek and Cyrillic). Shapes by tiny-skia, glyphs by
//! fontdue, glyph bitmaps cached, the words' layout kept until the words change (a 2-minute
//! dictation's 300 words are not laid out again at every frame of the clock). Pure and portable: the window ([`super::window`]) only copies
//! the result to the screen, and the tests render the same pixels.

use super::layout::{layout, Kind, Layout};
use super::view::{Phase, View};
use fontdue::{Font, FontSettings};
use std::collections::HashMap;
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Transform};

/// The panel's size in logical pixels.
pub const WIDTH: f32 = 440.0;
pub const HEIGHT: f32 = 104.0;
/// How many lines of words fit.
pub const TEXT_LINES: usize = 2;

const PAD: f32 = 16.0;
const LABEL_PX: f32 = 15.0;
/// The words' font size and line width, in logical pixels.
pub const TEXT_PX: f32 = 15.0;
pub const TEXT_WIDTH: f32 = WIDTH - 2.0 * PAD;
const TEXT_TOP: f32 = 56.0;
const LINE_HEIGHT: f32 = 20.0;

const BACKGROUND: [u8; 3] = [24, 24, 27];
const BORDER: [u8; 3] = [82, 82, 91];
const TEXT: [u8; 3] = [244, 244, 245];
const HINT: [u8; 3] = [161, 161, 170];
/// The tentative tail: the same font as the committed words, greyer (it may still change).
const TENTATIVE: [u8; 3] = [150, 150, 158];
const TRACK: [u8; 3] = [63, 63, 70];
const RED: [u8; 3] = [239, 68, 68];
const AMBER: [u8; 3] = [245, 158, 11];
const GREEN: [u8; 3] = [34, 197, 94];

static REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

/// Why the overlay cannot draw.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("the overlay font {name} cannot be read: {problem}")]
    Font { name: &'static str, problem: String },
    #[error("the overlay cannot be drawn at {width}x{height} pixels")]
    Size { width: u32, height: u32 },
}

/// The panel's size in device pixels at `scale` (the screen's scale factor).
pub fn pixel_size(scale: f32) -> (u32, u32) {
    let scale = sane_scale(scale);
    (
        (WIDTH * scale).round() as u32,
        (HEIGHT * scale).round() as u32,
    )
}

/// Where the words are drawn, in device pixels at `scale` (the tests compare this area).
pub fn text_area(scale: f32) -> Rect {
    let scale = sane_scale(scale);
    Rect::from_xywh(
        PAD * scale,
        (TEXT_TOP - 2.0) * scale,
        (WIDTH - 2.0 * PAD) * scale,
        (LINE_HEIGHT * TEXT_LINES as f32 + 4.0) * scale,
    )
    .expect("a positive area")
}

fn sane_scale(scale: f32) -> f32 {
    if scale.is_finite() && scale > 0.0 {
        scale.clamp(0.5, 4.0)
    } else {
        1.0
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct GlyphKey {
    c: char,
    px_bits: u32,
    bold: bool,
}

struct Glyph {
    metrics: fontdue::Metrics,
    coverage: Vec<u8>,
}

/// The words a layout was made for.
#[derive(PartialEq)]
struct LaidOut {
    committed: String,
    tentative: String,
}

/// The fonts, the glyphs drawn so far and the words' last layout.
pub struct Renderer {
    regular: Font,
    bold: Font,
    glyphs: HashMap<GlyphKey, Glyph>,
    laid_out: Option<(LaidOut, Layout)>,
    layouts_made: u64,
}

impl Renderer {
    pub fn new() -> Result<Renderer, RenderError> {
        let load = |name, bytes| {
            Font::from_bytes(bytes, FontSettings::default()).map_err(|problem| RenderError::Font {
                name,
                problem: problem.to_string(),
            })
        };
        Ok(Renderer {
            regular: load("DejaVuSans.ttf", REGULAR)?,
            bold: load("DejaVuSans-Bold.ttf", BOLD)?,
            glyphs: HashMap::new(),
            laid_out: None,
            layouts_made: 0,
        })
    }

    /// Whether the bundled fonts draw `c` (else it shows as a box).
    pub fn covers(&self, c: char) -> bool {
        self.regular.lookup_glyph_index(c) != 0 && self.bold.lookup_glyph_index(c) != 0
    }

    /// The whole panel for `view` at `scale`.
    pub fn render(&mut self, view: &View, scale: f32) -> Result<Pixmap, RenderError> {
        let scale = sane_scale(scale);
        let (width, height) = pixel_size(scale);
        let mut pixmap = Pixmap::new(width, height).ok_or(RenderError::Size { width, height })?;
        pixmap.fill(color(BORDER));
        fill_rect(
            &mut pixmap,
            scale,
            (1.0, 1.0, WIDTH - 2.0, HEIGHT - 2.0),
            BACKGROUND,
        );

        let dot = match view.phase {
            Phase::Recording => RED,
            Phase::Transcribing => AMBER,
            Phase::Done { .. } => GREEN,
            Phase::NothingRecognised => HINT,
        };
        fill_circle(&mut pixmap, scale, (PAD + 6.0, 24.0), 6.0, dot);
        let baseline = 24.0 + LABEL_PX * 0.36;
        self.draw_text(
            &mut pixmap,
            scale,
            &view.heading(),
            (PAD + 20.0, baseline),
            LABEL_PX,
            true,
            TEXT,
        );
        let time = view.time();
        if !time.is_empty() {
            let width = self.advance(&time, LABEL_PX, false);
            let colour = if view.remaining_warning().is_some() {
                AMBER
            } else {
                HINT
            };
            self.draw_text(
                &mut pixmap,
                scale,
                &time,
                (WIDTH - PAD - width, baseline),
                LABEL_PX,
                false,
                colour,
            );
        }

        if view.shows_meter() {
            let track = (PAD, 40.0, WIDTH - 2.0 * PAD, 6.0);
            fill_rect(&mut pixmap, scale, track, TRACK);
            let level = view.level.clamp(0.0, 1.0);
            if level > 0.0 {
                let fill = if level > 0.92 { AMBER } else { GREEN };
                fill_rect(
                    &mut pixmap,
                    scale,
                    (track.0, track.1, track.2 * level, track.3),
                    fill,
                );
            }
        }

        let (committed, tentative, colours) = match view.hint() {
            Some(hint) => (hint, "", (HINT, HINT)),
            None => (
                view.committed.as_str(),
                view.tentative.as_str(),
                (TEXT, TENTATIVE),
            ),
        };
        let lines = self.words_layout(committed, tentative).lines.clone();
        for (i, runs) in lines.iter().enumerate() {
            let baseline = TEXT_TOP + TEXT_PX + i as f32 * LINE_HEIGHT;
            for run in runs {
                let colour = match run.kind {
                    Kind::Committed => colours.0,
                    Kind::Tentative => colours.1,
                };
                self.draw_text(
                    &mut pixmap,
                    scale,
                    &run.text,
                    (PAD + run.x, baseline),
                    TEXT_PX,
                    false,
                    colour,
                );
            }
        }
        Ok(pixmap)
    }

    /// The layout of the words in the panel, made again only when they changed.
    pub fn words_layout(&mut self, committed: &str, tentative: &str) -> &Layout {
        let fresh = self
            .laid_out
            .as_ref()
            .is_some_and(|(words, _)| words.committed == committed && words.tentative == tentative);
        if !fresh {
            let made = layout(committed, tentative, TEXT_WIDTH, TEXT_LINES, |text| {
                self.advance(text, TEXT_PX, false)
            });
            self.layouts_made += 1;
            let words = LaidOut {
                committed: committed.to_string(),
                tentative: tentative.to_string(),
            };
            self.laid_out = Some((words, made));
        }
        &self.laid_out.as_ref().expect("laid out above").1
    }

    /// How many times the words were laid out (the tests check a frame with the same words
    /// reuses the last layout).
    pub fn layouts_made(&self) -> u64 {
        self.layouts_made
    }

    /// The width of `text` in logical pixels.
    pub fn advance(&self, text: &str, px: f32, bold: bool) -> f32 {
        let font = if bold { &self.bold } else { &self.regular };
        text.chars()
            .map(|c| font.metrics(c, px).advance_width)
            .sum()
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_text(
        &mut self,
        pixmap: &mut Pixmap,
        scale: f32,
        text: &str,
        (x, baseline): (f32, f32),
        px: f32,
        bold: bool,
        colour: [u8; 3],
    ) {
        let size = px * scale;
        let mut pen = x * scale;
        let baseline = (baseline * scale).round() as i32;
        for c in text.chars() {
            let key = GlyphKey {
                c,
                px_bits: size.to_bits(),
                bold,
            };
            let font = if bold { &self.bold } else { &self.regular };
            let glyph = self.glyphs.entry(key).or_insert_with(|| {
                let (metrics, coverage) = font.rasterize(c, size);
                Glyph { metrics, coverage }
            });
            let m = glyph.metrics;
            let left = pen.round() as i32 + m.xmin;
            let top = baseline - m.height as i32 - m.ymin;
            blend_coverage(pixmap, left, top, m.width, &glyph.coverage, colour);
            pen += m.advance_width;
        }
    }
}

/// Paints `colour` over `pixmap` (opaque) through a glyph's coverage bitmap at (`left`, `top`).
fn blend_coverage(
    pixmap: &mut Pixmap,
    left: i32,
    top: i32,
    width: usize,
    coverage: &[u8],
    colour: [u8; 3],
) {
    if width == 0 {
        return;
    }
    let (pw, ph) = (pixmap.width() as i32, pixmap.height() as i32);
    let data = pixmap.data_mut();
    for (row, line) in coverage.chunks(width).enumerate() {
        let y = top + row as i32;
        if y < 0 || y >= ph {
            continue;
        }
        for (col, &a) in line.iter().enumerate() {
            let x = left + col as i32;
            if a == 0 || x < 0 || x >= pw {
                continue;
            }
            let at = ((y * pw + x) * 4) as usize;
            let a = u32::from(a);
            for (channel, &c) in data[at..at + 3].iter_mut().zip(&colour) {
                *channel = ((u32::from(c) * a + u32::from(*channel) * (255 - a)) / 255) as u8;
            }
            data[at + 3] = 255;
        }
    }
}

fn color([r, g, b]: [u8; 3]) -> Color {
    Color::from_rgba8(r, g, b, 255)
}

fn paint(colour: [u8; 3]) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(color(colour));
    paint.anti_alias = true;
    paint
}

/// Fills a rectangle given in logical pixels.
fn fill_rect(pixmap: &mut Pixmap, scale: f32, (x, y, w, h): (f32, f32, f32, f32), c: [u8; 3]) {
    if let Some(rect) = Rect::from_xywh(x * scale, y * scale, w * scale, h * scale) {
        pixmap.fill_rect(rect, &paint(c), Transform::identity(), None);
    }
}

fn fill_circle(pixmap: &mut Pixmap, scale: f32, (x, y): (f32, f32), r: f32, c: [u8; 3]) {
    if let Some(path) = PathBuilder::from_circle(x * scale, y * scale, r * scale) {
        pixmap.fill_path(
            &path,
            &paint(c),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// `pixmap` as the 0RGB words a window surface takes (the panel is opaque).
pub fn to_xrgb(pixmap: &Pixmap, out: &mut [u32]) {
    for (word, px) in out.iter_mut().zip(pixmap.data().chunks_exact(4)) {
        *word = (u32::from(px[0]) << 16) | (u32::from(px[1]) << 8) | u32::from(px[2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::UiLang;
    use std::time::Duration;

    fn view(phase: Phase, text: &str) -> View {
        View {
            lang: UiLang::Pl,
            phase,
            elapsed: Duration::from_secs(3),
            max_length: Duration::from_secs(120),
            warn_before: Duration::from_secs(10),
            level: 0.5,
            committed: text.into(),
            tentative: String::new(),
            mode: String::new(),
        }
    }

    fn text_pixels(r: &mut Renderer, text: &str) -> Vec<u8> {
        let pixmap = r.render(&view(Phase::Recording, text), 1.0).unwrap();
        let area = text_area(1.0);
        let mut out = Vec::new();
        for y in area.top() as u32..area.bottom() as u32 {
            let row = (y * pixmap.width()) as usize * 4;
            out.extend_from_slice(
                &pixmap.data()[row + area.left() as usize * 4..row + area.right() as usize * 4],
            );
        }
        out
    }

    #[test]
    fn the_bundled_fonts_draw_every_polish_letter() {
        let r = Renderer::new().unwrap();
        for c in "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ…·—„”ÄÖÜßéèçñšžčřěůýíáЖжΩ".chars()
        {
            assert!(r.covers(c), "{c} has no glyph");
        }
    }

    #[test]
    fn diacritics_change_the_pixels_they_should() {
        let mut r = Renderer::new().unwrap();
        let plain = text_pixels(&mut r, "Zolw w Lodzi");
        let polish = text_pixels(&mut r, "Żółw w Łodzi");
        assert_ne!(plain, polish);
        // Drawn, not empty: some pixels of the words are the text colour, almost exactly.
        let bright = polish
            .chunks(4)
            .filter(|p| p[0] > 230 && p[1] > 230)
            .count();
        assert!(bright > 40, "{bright}");
        // The same text draws the same pixels (the glyph cache changes nothing).
        assert_eq!(polish, text_pixels(&mut r, "Żółw w Łodzi"));
    }

    #[test]
    fn the_tentative_tail_is_drawn_dimmer_than_the_committed_words() {
        let mut r = Renderer::new().unwrap();
        let mut v = view(Phase::Recording, "Umówmy się");
        v.tentative = "na środę".into();
        let pixmap = r.render(&v, 1.0).unwrap();
        let runs = r.words_layout("Umówmy się", "na środę").lines[0].clone();
        assert_eq!(
            runs.iter().map(|run| run.kind).collect::<Vec<_>>(),
            vec![Kind::Committed, Kind::Tentative]
        );
        // The brightest pixel of each run's columns on the first line of words.
        let brightest = |from: f32, to: f32| {
            let area = text_area(1.0);
            let mut max = 0u8;
            for y in area.top() as u32..(TEXT_TOP + LINE_HEIGHT) as u32 {
                for x in (PAD + from) as u32..(PAD + to) as u32 {
                    let px = pixmap.pixel(x, y).unwrap();
                    max = max.max(px.red().min(px.green()).min(px.blue()));
                }
            }
            max
        };
        let committed_end = runs[0].x + r.advance(&runs[0].text, TEXT_PX, false);
        let tentative_end = runs[1].x + r.advance(&runs[1].text, TEXT_PX, false);
        let committed = brightest(runs[0].x, committed_end);
        let tentative = brightest(runs[1].x, tentative_end);
        assert!(
            committed >= 235,
            "committed words in full colour: {committed}"
        );
        assert!(
            (120..=170).contains(&tentative),
            "the tentative words drawn, dimmed: {tentative}"
        );
        // The same words with nothing tentative: all in full colour.
        let mut all = view(Phase::Recording, "Umówmy się na środę");
        all.tentative.clear();
        let pixmap = r.render(&all, 1.0).unwrap();
        let mut max = 0u8;
        let y0 = text_area(1.0).top() as u32;
        for y in y0..(TEXT_TOP + LINE_HEIGHT) as u32 {
            for x in (PAD + runs[1].x) as u32..(PAD + tentative_end) as u32 {
                let px = pixmap.pixel(x, y).unwrap();
                max = max.max(px.red().min(px.green()).min(px.blue()));
            }
        }
        assert!(max >= 235, "{max}");
    }

    #[test]
    fn the_words_are_laid_out_again_only_when_they_change() {
        let mut r = Renderer::new().unwrap();
        let committed = "słowo ".repeat(300);
        let mut v = view(Phase::Recording, &committed);
        v.tentative = "i jeszcze".into();
        r.render(&v, 1.0).unwrap();
        assert_eq!(r.layouts_made(), 1);
        // The clock's next second, the meter: the same words, the same layout.
        v.elapsed += Duration::from_secs(1);
        v.level = 0.9;
        let first = r.render(&v, 1.0).unwrap();
        r.render(&v, 2.0).unwrap();
        assert_eq!(r.layouts_made(), 1);
        // The tentative tail changed: laid out again.
        v.tentative = "i jeszcze raz".into();
        let second = r.render(&v, 1.0).unwrap();
        assert_eq!(r.layouts_made(), 2);
        assert_ne!(first.data(), second.data());
    }

    #[test]
    fn the_meter_fills_with_the_level_and_only_while_recording() {
        let mut r = Renderer::new().unwrap();
        let meter_row = |r: &mut Renderer, phase, level: f32| {
            let mut v = view(phase, "");
            v.level = level;
            let p = r.render(&v, 1.0).unwrap();
            let y = 43;
            (PAD as u32..(WIDTH - PAD) as u32)
                .filter(|&x| {
                    let px = p.pixel(x, y).unwrap();
                    px.green() > 150 && px.red() < 100
                })
                .count()
        };
        let quiet = meter_row(&mut r, Phase::Recording, 0.1);
        let loud = meter_row(&mut r, Phase::Recording, 0.8);
        assert!(quiet > 30 && loud > quiet * 5, "{quiet} {loud}");
        assert_eq!(meter_row(&mut r, Phase::Recording, 0.0), 0);
        assert_eq!(meter_row(&mut r, Phase::Transcribing, 0.8), 0);
    }

    #[test]
    fn it_scales_for_high_density_screens() {
        let mut r = Renderer::new().unwrap();
        let p = r.render(&view(Phase::Recording, "Tak."), 2.0).unwrap();
        assert_eq!((p.width(), p.height()), pixel_size(2.0));
        assert_eq!(pixel_size(2.0), (880, 208));
        assert_eq!(pixel_size(f32::NAN), pixel_size(1.0));
        let mut words = vec![0u32; (p.width() * p.height()) as usize];
        to_xrgb(&p, &mut words);
        assert_eq!(words[0], 0x52525b, "the border");
    }
}
