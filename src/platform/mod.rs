//! The platform seam: the only module of the library with `#[cfg(target_os)]` (the window
//! process has its own, `src/window_host/webview.rs`). Everything here is a thin
//! query of the OS; the decisions made from the answers live in portable code (and the parsing
//! of what the OS returns is portable too, so Linux tests exercise it).

mod clipboard;
mod file_modes;
mod focus;
mod hotkeys;
mod input;
mod key_access;
mod keyboard_layout;
mod keystrokes;
pub mod keysyms;
pub mod layer_surface;
pub mod media;
mod notifications;
#[cfg(target_os = "linux")]
pub mod portal;
/// Off Linux the same names, answering "not available".
#[cfg(not(target_os = "linux"))]
#[path = "portal/elsewhere.rs"]
pub mod portal;
mod power;
mod shortcut_trigger;
#[cfg(target_os = "linux")]
pub mod wayland;

pub use clipboard::{primary_text, set_clipboard_text, set_primary_text};
pub use file_modes::{dir_builder_mode, mode_of, open_options_mode, set_mode};
pub use focus::{class_of_wm_class, front_window_of, names_of_wm_class, Focus, FocusProbe};
pub use hotkeys::{HotkeyError, HotkeyListener};
pub use input::{clipboard_change_count, prime_keyboard_events, symbolic_hotkeys_plist};
pub use key_access::{ask_for_accessibility, secure_input_enabled};
pub use keyboard_layout::{command_key_characters, on_input_source_change};
pub use keystrokes::{PasteKeys, PressAfter};
pub use notifications::{set_notification_sender, show_notification};
pub use power::{performance_cores, UserActivity};
pub use shortcut_trigger::xdg_shortcut_trigger;

// Keystrokes on a Wayland session (`wayland::virtual_keyboard`); off Linux a stand-in that is
// never created, so the portable `inject::sender` names the same type everywhere.
#[cfg(not(target_os = "linux"))]
pub use no_wayland::{VirtualKeyboard, VirtualKeyboardError};
#[cfg(target_os = "linux")]
pub use wayland::virtual_keyboard::{VirtualKeyboard, VirtualKeyboardError};

/// No Wayland off Linux: [`VirtualKeyboard::new`] always fails and no value of it exists.
#[cfg(not(target_os = "linux"))]
mod no_wayland {
    pub enum VirtualKeyboard {}

    #[derive(Debug, thiserror::Error)]
    pub enum VirtualKeyboardError {
        #[error("no Wayland display on this system")]
        NoDisplay,
    }

    impl VirtualKeyboard {
        pub fn new() -> Result<VirtualKeyboard, VirtualKeyboardError> {
            Err(VirtualKeyboardError::NoDisplay)
        }

        pub fn press_chord(&mut self, _keysyms: &[u32]) -> Result<(), VirtualKeyboardError> {
            match *self {}
        }

        pub fn type_text(&mut self, _text: &str) -> Result<(), VirtualKeyboardError> {
            match *self {}
        }
    }
}

/// Whether this is macOS, for the few portable decisions that differ there (key names shown as
/// ⌃⌥⌘, template icons).
pub const IS_MACOS: bool = cfg!(target_os = "macos");

/// The Apple chip's marketing name ("M1", "M2 Pro") on a Mac; `None` elsewhere.
pub fn apple_chip_name() -> Option<String> {
    #[cfg(target_os = "macos")]
    {
        let out = std::process::Command::new("/usr/sbin/sysctl")
            .args(["-n", "machdep.cpu.brand_string"])
            .output()
            .ok()?;
        chip_name_from_brand(&String::from_utf8_lossy(&out.stdout))
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// The OS version on a Mac: product version and build (`sysctl -n kern.osproductversion
/// kern.osversion`, e.g. "14.4.1 (23E224)"); MPS's kernels ship with it, so the probe cache is
/// keyed by it. `None` elsewhere or when `sysctl` fails.
pub fn os_version() -> Option<String> {
    #[cfg(target_os = "macos")]
    {
        let out = std::process::Command::new("/usr/sbin/sysctl")
            .args(["-n", "kern.osproductversion", "kern.osversion"])
            .output()
            .ok()?;
        os_version_from_sysctl(&String::from_utf8_lossy(&out.stdout))
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// `sysctl -n kern.osproductversion kern.osversion`'s two lines ("14.4.1\n23E224\n") as
/// "14.4.1 (23E224)"; the product version alone when the build is missing (portable).
pub fn os_version_from_sysctl(text: &str) -> Option<String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let product = lines.next()?;
    Some(match lines.next() {
        Some(build) => format!("{product} ({build})"),
        None => product.to_string(),
    })
}

/// A moment as the local clock and calendar show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    pub year: i32,
    /// 1–12.
    pub month: u32,
    /// 1–31.
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

/// `at` in the system's time zone (POSIX `localtime_r`, on macOS and Linux alike); `None` for a
/// moment the system cannot convert.
pub fn local_time(at: std::time::SystemTime) -> Option<LocalTime> {
    let seconds = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    let seconds = libc::time_t::try_from(seconds).ok()?;
    // SAFETY: `tm` is plain data that localtime_r fills; both pointers are valid for the call.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&seconds, &mut tm).is_null() {
            return None;
        }
        tm
    };
    Some(LocalTime {
        year: tm.tm_year + 1900,
        month: u32::try_from(tm.tm_mon + 1).ok()?,
        day: u32::try_from(tm.tm_mday).ok()?,
        hour: u32::try_from(tm.tm_hour).ok()?,
        minute: u32::try_from(tm.tm_min).ok()?,
    })
}

/// "Apple M1 Pro" → "M1 Pro"; other brand strings (Intel Macs) → `None`.
pub fn chip_name_from_brand(brand: &str) -> Option<String> {
    let name = brand.trim().strip_prefix("Apple ")?.trim();
    name.starts_with('M').then(|| name.to_string())
}

/// Whether this CPU computes bfloat16 natively (AVX-512 BF16 / AMX on x86, BF16 on Arm),
/// which makes bf16 matmuls several times faster than f32 instead of slower.
pub fn cpu_has_native_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("bf16")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// Which launch-at-login mechanism an OS uses (`login_item` writes and reads the entries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginItemKind {
    /// macOS: `~/Library/LaunchAgents/<label>.plist`, loaded by launchd at login.
    LaunchAgent,
    /// Linux desktops: `$XDG_CONFIG_HOME/autostart/whisper-dictation.desktop`.
    XdgAutostart,
}

/// Which launch-at-login mechanism this OS uses.
pub fn login_item_kind() -> LoginItemKind {
    #[cfg(target_os = "macos")]
    {
        LoginItemKind::LaunchAgent
    }
    #[cfg(not(target_os = "macos"))]
    {
        LoginItemKind::XdgAutostart
    }
}

/// Modifier keys held down: which of Shift, Control, Alt (Option) and Super (Command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modifiers {
    pub shift: bool,
    pub control: bool,
    pub alt: bool,
    /// Super on X11, Command on macOS.
    pub command: bool,
}

impl Modifiers {
    /// No modifier.
    pub const NONE: Modifiers = Modifiers {
        shift: false,
        control: false,
        alt: false,
        command: false,
    };

    /// Whether any is held.
    pub fn any(self) -> bool {
        self.shift || self.control || self.alt || self.command
    }

    /// Whether any is held that `allowed` does not name.
    pub fn any_besides(self, allowed: Modifiers) -> bool {
        (self.shift && !allowed.shift)
            || (self.control && !allowed.control)
            || (self.alt && !allowed.alt)
            || (self.command && !allowed.command)
    }
}

/// The modifier of the system's paste shortcut: Command on macOS, Control elsewhere.
pub const PASTE_MODIFIERS: Modifiers = Modifiers {
    control: !IS_MACOS,
    command: IS_MACOS,
    ..Modifiers::NONE
};

/// A connection to the X display and its root window: what the X11 probes (modifiers, focus)
/// read from. `None` without a display.
#[cfg(target_os = "linux")]
fn x11_root_connection() -> Option<(x11rb::rust_connection::RustConnection, u32)> {
    let (conn, screen) = x11rb::connect(None).ok()?;
    let root = x11rb::connection::Connection::setup(&conn)
        .roots
        .get(screen)?
        .root;
    Some((conn, root))
}

/// The physical modifier keys (Shift, Control, Alt/Option, Super/Command) as the window
/// system sees them: waited for before a synthesized paste, and read again after it (a key
/// pressed meanwhile changes what the keystrokes did).
pub struct ModifierProbe {
    #[cfg(target_os = "linux")]
    x11: (x11rb::rust_connection::RustConnection, u32),
}

impl ModifierProbe {
    /// `None` where the state cannot be read (Wayland, no display).
    pub fn new() -> Option<ModifierProbe> {
        #[cfg(target_os = "linux")]
        {
            Some(ModifierProbe {
                x11: x11_root_connection()?,
            })
        }
        #[cfg(target_os = "macos")]
        {
            Some(ModifierProbe {})
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            None
        }
    }

    /// The modifiers held now; `None` when the query failed.
    pub fn held(&self) -> Option<Modifiers> {
        #[cfg(target_os = "linux")]
        {
            use x11rb::protocol::xproto::{ConnectionExt, KeyButMask};
            let (conn, root) = &self.x11;
            let mask = conn.query_pointer(*root).ok()?.reply().ok()?.mask;
            Some(Modifiers {
                shift: mask.contains(KeyButMask::SHIFT),
                control: mask.contains(KeyButMask::CONTROL),
                alt: mask.contains(KeyButMask::MOD1),
                command: mask.contains(KeyButMask::MOD4),
            })
        }
        #[cfg(target_os = "macos")]
        {
            // CGEventSourceFlagsState(kCGEventSourceStateHIDSystemState): the hardware state.
            #[link(name = "ApplicationServices", kind = "framework")]
            extern "C" {
                fn CGEventSourceFlagsState(state_id: i32) -> u64;
            }
            const HID_SYSTEM_STATE: i32 = 1;
            // kCGEventFlagMaskShift, …Control, …Alternate (Option), …Command.
            const SHIFT: u64 = 0x0002_0000;
            const CONTROL: u64 = 0x0004_0000;
            const ALTERNATE: u64 = 0x0008_0000;
            const COMMAND: u64 = 0x0010_0000;
            let flags = unsafe { CGEventSourceFlagsState(HID_SYSTEM_STATE) };
            Some(Modifiers {
                shift: flags & SHIFT != 0,
                control: flags & CONTROL != 0,
                alt: flags & ALTERNATE != 0,
                command: flags & COMMAND != 0,
            })
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            None
        }
    }
}

/// The modifiers a paste keystroke holds: its own, not foreign ones.
pub fn paste_modifiers(keys: PasteKeys) -> Modifiers {
    match keys {
        PasteKeys::CtrlV => Modifiers {
            control: true,
            ..Modifiers::NONE
        },
        PasteKeys::CtrlShiftV => Modifiers {
            control: true,
            shift: true,
            ..Modifiers::NONE
        },
        PasteKeys::ShiftInsert => Modifiers {
            shift: true,
            ..Modifiers::NONE
        },
        PasteKeys::CmdV => Modifiers {
            command: true,
            ..Modifiers::NONE
        },
    }
}

/// Sends a paste keystroke by key: on macOS Cmd + the virtual key code `v_key`, the key that
/// types "v" with ⌘ held in the person's layout (`inject::paste_key`, read on the main thread:
/// enigo's own `Key::Unicode` lookup would read the layout on this, the output, thread);
/// on X11, where applications match shortcuts by keysym, enigo's keysym lookup finds the key
/// that types "v" in the active layout (`v_key` unused): Ctrl+V, Ctrl+Shift+V (terminals) or
/// Shift+Insert (xterm). A keystroke of the other OS is sent as this OS's own paste.
pub fn send_paste_shortcut(
    enigo: &mut enigo::Enigo,
    v_key: u16,
    keys: PasteKeys,
) -> enigo::InputResult<()> {
    use enigo::{Direction, Key, Keyboard};
    let keys = if keys.on(IS_MACOS) {
        keys
    } else {
        PasteKeys::system(IS_MACOS)
    };
    #[cfg(target_os = "macos")]
    let press_key = |e: &mut enigo::Enigo| {
        let _ = keys;
        e.raw(v_key, Direction::Click)
    };
    #[cfg(not(target_os = "macos"))]
    let press_key = |e: &mut enigo::Enigo| {
        let _ = v_key;
        match keys {
            PasteKeys::ShiftInsert => e.key(Key::Insert, Direction::Click),
            _ => e.key(Key::Unicode('v'), Direction::Click),
        }
    };
    let held: Vec<Key> = match keys {
        PasteKeys::CtrlV => vec![Key::Control],
        PasteKeys::CtrlShiftV => vec![Key::Control, Key::Shift],
        PasteKeys::ShiftInsert => vec![Key::Shift],
        PasteKeys::CmdV => vec![Key::Meta],
    };
    press_with(enigo, &held, press_key)
}

/// Presses `after` (Enter, Shift+Enter, …) once; nothing for [`PressAfter::Nothing`].
pub fn send_key_after(enigo: &mut enigo::Enigo, after: PressAfter) -> enigo::InputResult<()> {
    use enigo::{Direction, Key, Keyboard};
    let held: Vec<Key> = match after {
        PressAfter::Nothing => return Ok(()),
        PressAfter::Enter => vec![],
        PressAfter::ShiftEnter => vec![Key::Shift],
        PressAfter::CtrlEnter => vec![Key::Control],
        PressAfter::CmdEnter => vec![Key::Meta],
    };
    press_with(enigo, &held, |e| e.key(Key::Return, Direction::Click))
}

/// Holds `held` (in order), runs `press`, lets them go (in reverse order), whatever failed.
fn press_with(
    enigo: &mut enigo::Enigo,
    held: &[enigo::Key],
    press: impl FnOnce(&mut enigo::Enigo) -> enigo::InputResult<()>,
) -> enigo::InputResult<()> {
    use enigo::{Direction, Keyboard};
    let mut result = Ok(());
    let mut down = 0;
    for key in held {
        result = enigo.key(*key, Direction::Press);
        if result.is_err() {
            break;
        }
        down += 1;
    }
    if result.is_ok() {
        result = press(enigo);
    }
    for key in held[..down].iter().rev() {
        let released = enigo.key(*key, Direction::Release);
        result = result.and(released);
    }
    result
}

/// The folder of the shared library whose file name starts with `name` (e.g. "libtorch_cpu")
/// as this process loaded it: `/proc/self/maps` on Linux, the dyld image list on macOS.
pub fn loaded_library_dir(name: &str) -> Option<std::path::PathBuf> {
    #[cfg(target_os = "linux")]
    let paths: Vec<String> = std::fs::read_to_string("/proc/self/maps")
        .ok()?
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5).map(str::to_string))
        .collect();
    #[cfg(target_os = "macos")]
    let paths: Vec<String> = {
        extern "C" {
            fn _dyld_image_count() -> u32;
            fn _dyld_get_image_name(index: u32) -> *const std::os::raw::c_char;
        }
        (0..unsafe { _dyld_image_count() })
            .filter_map(|i| {
                let name = unsafe { _dyld_get_image_name(i) };
                (!name.is_null()).then(|| {
                    unsafe { std::ffi::CStr::from_ptr(name) }
                        .to_string_lossy()
                        .into_owned()
                })
            })
            .collect()
    };
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    let paths: Vec<String> = Vec::new();
    library_dir_among(&paths, name)
}

/// The folder of the first path whose file name starts with `name` (portable, for tests).
pub fn library_dir_among(paths: &[String], name: &str) -> Option<std::path::PathBuf> {
    paths.iter().find_map(|path| {
        let path = std::path::Path::new(path);
        let file = path.file_name()?.to_str()?;
        file.starts_with(name)
            .then(|| path.parent().map(std::path::Path::to_path_buf))
            .flatten()
    })
}

/// Hands memory freed by the allocator back to the system (glibc keeps freed heap pages for
/// reuse: after a model load that is the float16 → float32 conversion's temporaries).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Bounds glibc's malloc to two arenas (its default is up to 8 per core), unless the user set
/// `MALLOC_ARENA_MAX` (glibc then reads it). Each thread that allocates can get an arena of
/// its own, and freed tensors stay in the arena that held them: on the test desktop the peak of a 60 / 110 s
/// dictation without pauses was 532–543 / 564–569 MB with two arenas against 556–565 / 595–603
/// MB without, resident after it 437 against 457–471 MB, app CPU the same (three runs each,
/// BENCHMARKS.md, "Both CPU classes on one machine"). Call first in `main`, before any thread
/// exists. macOS's allocator has no such arenas: nothing to do there.
pub fn bound_allocator_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
            return;
        }
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        /// `M_ARENA_MAX` of glibc's `malloc.h`.
        const M_ARENA_MAX: i32 = -8;
        const ARENAS: i32 = 2;
        unsafe {
            mallopt(M_ARENA_MAX, ARENAS);
        }
    }
}

/// GTK's variable for its use of OpenGL (`disable`: none).
pub const GDK_GL: &str = "GDK_GL";

/// Whether [`skip_opengl`] set [`GDK_GL`] for this process (not the user).
static GDK_GL_SET_HERE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Keeps GTK from loading OpenGL, unless the user set `GDK_GL` themselves. Nothing in the app
/// draws with it (the overlay's pixels are softbuffer's, the menus are GTK's software drawing),
/// yet GTK 3 on X11 opens GLX when it starts, to choose its visuals, and Mesa then maps its
/// LLVM: on the test desktop 43 MB of the app's resident size (ready 378 → 326 MB, a 60 s
/// dictation's peak 518 → 451 MB). Call early in `main`, before any thread exists; macOS has
/// no GTK: nothing to do there.
pub fn skip_opengl() {
    #[cfg(target_os = "linux")]
    {
        if std::env::var_os(GDK_GL).is_some() {
            return;
        }
        std::env::set_var(GDK_GL, "disable");
        GDK_GL_SET_HERE.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether [`skip_opengl`] set `GDK_GL` here: the processes the app starts (the window's
/// webview) are then started without it, as the user's environment has them.
pub fn opengl_skipped_here() -> bool {
    GDK_GL_SET_HERE.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether this process may send keystrokes to other apps: macOS's Accessibility permission
/// (`AXIsProcessTrusted`; a grant goes stale when the app is rebuilt or moved). `None` where no
/// such permission exists (X11).
pub fn accessibility_trusted() -> Option<bool> {
    #[cfg(target_os = "macos")]
    {
        #[link(name = "ApplicationServices", kind = "framework")]
        extern "C" {
            fn AXIsProcessTrusted() -> bool;
        }
        Some(unsafe { AXIsProcessTrusted() })
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// The microphone authorisation as macOS's `AVCaptureDevice authorizationStatusForMediaType:
/// AVMediaTypeAudio` returns it (0 not determined, 1 restricted, 2 denied, 3 authorized; read
/// by `permissions::MicrophoneAccess`). `None` where no such permission exists.
pub fn microphone_authorization() -> Option<i64> {
    #[cfg(target_os = "macos")]
    {
        use std::ffi::c_void;
        #[link(name = "AVFoundation", kind = "framework")]
        extern "C" {
            static AVMediaTypeAudio: *const c_void;
        }
        #[link(name = "objc")]
        extern "C" {
            fn objc_getClass(name: *const std::os::raw::c_char) -> *const c_void;
            fn sel_registerName(name: *const std::os::raw::c_char) -> *const c_void;
            fn objc_msgSend();
        }
        // objc_msgSend must be called through a pointer of the method's exact type (arm64).
        type StatusFn = unsafe extern "C" fn(*const c_void, *const c_void, *const c_void) -> isize;
        unsafe {
            let class = objc_getClass(c"AVCaptureDevice".as_ptr());
            if class.is_null() {
                return None;
            }
            let selector = sel_registerName(c"authorizationStatusForMediaType:".as_ptr());
            let send: StatusFn = std::mem::transmute(objc_msgSend as unsafe extern "C" fn());
            Some(send(class, selector, AVMediaTypeAudio) as i64)
        }
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// The user's preferred languages on macOS (`defaults read -g AppleLanguages`, e.g. "pl-PL"),
/// the first one: an app started from Finder has no `LANG`. `None` elsewhere or on failure.
pub fn preferred_language() -> Option<String> {
    #[cfg(target_os = "macos")]
    {
        let out = std::process::Command::new("/usr/bin/defaults")
            .args(["read", "-g", "AppleLanguages"])
            .output()
            .ok()?;
        first_apple_language(&String::from_utf8_lossy(&out.stdout))
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// The first entry of `defaults`' old-style array, `(\n    "pl-PL",\n    en\n)` (portable).
pub fn first_apple_language(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let first = inner.split(',').next()?.trim().trim_matches('"').trim();
    (!first.is_empty()).then(|| first.to_string())
}

/// Opens a folder in the system's file manager (Finder, or the XDG default), without waiting.
pub fn open_folder(path: &std::path::Path) -> std::io::Result<()> {
    open_with_system(&[path.as_os_str()])
}

/// Opens a text file (settings.json) in the system's text editor, without waiting: TextEdit or
/// the chosen editor on macOS (`open -t`), the desktop's handler for the file on Linux.
pub fn open_text_file(path: &std::path::Path) -> std::io::Result<()> {
    if IS_MACOS {
        open_with_system(&[std::ffi::OsStr::new("-t"), path.as_os_str()])
    } else {
        open_with_system(&[path.as_os_str()])
    }
}

/// Opens a URL (e.g. a System Settings pane, `x-apple.systempreferences:…`) with the system's
/// handler, without waiting.
pub fn open_url(url: &str) -> std::io::Result<()> {
    open_with_system(&[std::ffi::OsStr::new(url)])
}

fn open_with_system(args: &[&std::ffi::OsStr]) -> std::io::Result<()> {
    #[cfg(target_os = "macos")]
    let opener = "open";
    #[cfg(not(target_os = "macos"))]
    let opener = "xdg-open";
    let mut child = std::process::Command::new(opener)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // Reap it when it ends, without making the caller wait.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Platform touches on the event loop: on macOS the app lives only in the menu bar (no Dock
/// icon, no app menu), as `LSUIElement` says for the bundle, and it does not take the focus
/// from the app in front when it starts (tao activates the app at launch ignoring the other
/// apps unless told otherwise: a launch at login or a restart would pull the focus away from
/// where the person types); elsewhere nothing.
pub fn configure_event_loop<T: 'static>(event_loop: &mut tao::event_loop::EventLoop<T>) {
    #[cfg(target_os = "macos")]
    {
        use tao::platform::macos::{ActivationPolicy, EventLoopExtMacOS};
        event_loop.set_activation_policy(ActivationPolicy::Accessory);
        event_loop.set_activate_ignoring_other_apps(false);
    }
    #[cfg(not(target_os = "macos"))]
    {
        let _ = event_loop;
    }
}

/// The overlay window's platform attributes before it is created: on Linux no taskbar entry and
/// no GTK painting of its own (softbuffer draws every pixel).
pub fn overlay_window_builder(builder: tao::window::WindowBuilder) -> tao::window::WindowBuilder {
    #[cfg(target_os = "linux")]
    {
        use tao::platform::unix::WindowBuilderExtUnix;
        builder
            .with_skip_taskbar(true)
            .with_default_vbox(false)
            .with_app_paintable(true)
            .with_double_buffered(false)
            .with_cursor_moved_event(false)
    }
    #[cfg(not(target_os = "linux"))]
    {
        builder
    }
}

/// Makes the (still hidden) overlay window one that is never focused and floats over every app.
/// X11: an override-redirect window (the window manager neither frames nor focuses it) with a
/// notification type hint. macOS: status-window level, on every Space and over full-screen apps,
/// out of the window cycle, never hidden when another app is active, transparent to the mouse
/// (tao's `with_focusable(false)` already keeps it from becoming the key window).
/// `size` is the panel's, in logical pixels.
pub fn prepare_overlay_window(window: &tao::window::Window, size: (f64, f64)) {
    #[cfg(target_os = "linux")]
    {
        use gtk::prelude::{GtkWindowExt, WidgetExt};
        use tao::platform::unix::WindowExtUnix;
        let gtk_window = window.gtk_window();
        gtk_window.set_type_hint(gtk::gdk::WindowTypeHint::Notification);
        gtk_window.set_accept_focus(false);
        gtk_window.set_focus_on_map(false);
        gtk_window.set_skip_pager_hint(true);
        // A window that cannot be resized takes its minimum size, which for one without child
        // widgets is 200 px high: ask for the panel's.
        gtk_window.set_size_request(size.0.round() as i32, size.1.round() as i32);
        gtk_window.realize();
        if let Some(gdk_window) = gtk_window.window() {
            gdk_window.set_override_redirect(true);
        }
    }
    #[cfg(target_os = "macos")]
    {
        use tao::platform::macos::WindowExtMacOS;
        // NSStatusWindowLevel; NSWindowCollectionBehavior CanJoinAllSpaces | Stationary |
        // IgnoresCycle | FullScreenAuxiliary.
        const STATUS_LEVEL: isize = 25;
        const BEHAVIOUR: usize = (1 << 0) | (1 << 4) | (1 << 6) | (1 << 8);
        let ns_window = window.ns_window().cast::<objc2::runtime::AnyObject>();
        if !ns_window.is_null() {
            // SAFETY: tao's NSWindow, alive while `window` is; each selector is an NSWindow
            // method taking the argument type given.
            unsafe {
                let _: () = objc2::msg_send![ns_window, setLevel: STATUS_LEVEL];
                let _: () = objc2::msg_send![ns_window, setCollectionBehavior: BEHAVIOUR];
                let _: () = objc2::msg_send![ns_window, setHidesOnDeactivate: false];
                let _: () = objc2::msg_send![ns_window, setIgnoresMouseEvents: true];
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = size;
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = window;
    }
}

/// Shows `icon` in the tray: as a template image on macOS (tinted by the system for light and
/// dark menu bars), as is elsewhere. (tray-icon's portable "as template" call does nothing at
/// all off macOS, so the choice is made here.)
pub fn set_tray_icon(tray: &tray_icon::TrayIcon, icon: tray_icon::Icon) -> tray_icon::Result<()> {
    #[cfg(target_os = "macos")]
    {
        tray.set_icon_templated(Some(icon))
    }
    #[cfg(not(target_os = "macos"))]
    {
        tray.set_icon(Some(icon))
    }
}

/// The tray icon style: macOS menu-bar icons are templates (black + alpha, tinted by the
/// system for light and dark menu bars); Linux trays show the coloured icons.
pub fn tray_icon_style() -> crate::app_icons::IconStyle {
    if IS_MACOS {
        crate::app_icons::IconStyle::Template
    } else {
        crate::app_icons::IconStyle::Color
    }
}

/// The variable the OpenMP runtime reads for what idle worker threads do (`ACTIVE`: spin,
/// `PASSIVE`: sleep).
const OMP_WAIT_POLICY: &str = "OMP_WAIT_POLICY";

/// Makes libtorch's OpenMP worker threads sleep while they wait instead of spinning, unless the
/// user set `OMP_WAIT_POLICY` themselves. Spinning threads steal the CPU from each other when
/// the machine is busy: with a build running beside it, a dictation's decoder took 1.0–3.3 s
/// with the default and 0.48–0.55 s with `PASSIVE` (encoder 1.5 → 1.25 s) on the 2-core test
/// machine. GNU OpenMP (libtorch on Linux) reads the variable once, when the library is loaded
/// before `main`, so the process re-executes itself with it set; call this first in `main`,
/// before any thread exists. Returns when nothing needed changing or the re-execution failed
/// (the app then runs with spinning threads).
pub fn prefer_sleeping_compute_threads() {
    if std::env::var_os(OMP_WAIT_POLICY).is_some() {
        return;
    }
    std::env::set_var(OMP_WAIT_POLICY, "PASSIVE");
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let mut args = std::env::args_os();
        let arg0 = args.next();
        if let Ok(exe) = std::env::current_exe() {
            let mut command = std::process::Command::new(exe);
            command.args(args);
            if let Some(arg0) = arg0 {
                command.arg0(arg0);
            }
            let error = command.exec(); // returns only on failure
            eprintln!(
                "whisper-dictation: could not restart with {OMP_WAIT_POLICY}=PASSIVE: {error}"
            );
        }
    }
}

/// The interface names the Wayland compositor at `WAYLAND_DISPLAY` offers; `Err` with the
/// reason where there is none to ask (X11, macOS).
pub fn wayland_globals() -> Result<Vec<String>, String> {
    #[cfg(target_os = "linux")]
    {
        wayland::globals().map(|g| g.interfaces.into_iter().map(|(name, _)| name).collect())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err("no Wayland on this system".into())
    }
}

/// What the desktop portal offers on the session bus: (GlobalShortcuts, RemoteDesktop); both
/// false where no portal answers (and off Linux).
pub fn portal_offers() -> (bool, bool) {
    match portal::PortalBus::session() {
        Ok(bus) => (bus.offers_global_shortcuts(), bus.offers_remote_desktop()),
        Err(_) => (false, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_is_found_among_mapped_paths() {
        let paths = [
            "/usr/lib/x86_64-linux-gnu/libc.so.6".to_string(),
            "/opt/torch/lib/libtorch_cpu.so".to_string(),
        ];
        assert_eq!(
            library_dir_among(&paths, "libtorch_cpu"),
            Some(std::path::PathBuf::from("/opt/torch/lib"))
        );
        assert_eq!(library_dir_among(&paths, "libtorch_cuda"), None);
    }

    #[test]
    fn the_first_preferred_language_is_read_from_defaults_output() {
        let out = "(\n    \"pl-PL\",\n    \"en-PL\"\n)\n";
        assert_eq!(first_apple_language(out), Some("pl-PL".into()));
        assert_eq!(first_apple_language("(\n    en\n)"), Some("en".into()));
        assert_eq!(first_apple_language("()"), None);
        assert_eq!(first_apple_language(""), None);
        assert_eq!(
            first_apple_language("The domain/default pair does not exist"),
            None
        );
    }

    #[test]
    fn the_os_version_is_the_product_version_and_build() {
        assert_eq!(
            os_version_from_sysctl("14.4.1\n23E224\n"),
            Some("14.4.1 (23E224)".into())
        );
        assert_eq!(os_version_from_sysctl("15.0\n"), Some("15.0".into()));
        assert_eq!(os_version_from_sysctl(""), None);
        if !IS_MACOS {
            assert_eq!(os_version(), None);
        }
    }

    #[test]
    fn apple_brand_strings_become_chip_names() {
        assert_eq!(chip_name_from_brand("Apple M1\n"), Some("M1".into()));
        assert_eq!(chip_name_from_brand("Apple M3 Max"), Some("M3 Max".into()));
        assert_eq!(
            chip_name_from_brand("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz"),
            None
        );
        assert_eq!(chip_name_from_brand(""), None);
    }
}
