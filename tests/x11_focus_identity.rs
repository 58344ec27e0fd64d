//! Issue 53, "a new window is a new window", on a real X server: the X server gives a program
//! that connects after another one disconnected the same window ids (the lowest free client slot
//! fixes a connection's resource-id base), so two text boxes opened one after the other are one
//! window id — and the focus probe still tells them apart, so a text into the second box is not
//! joined to the first with a space. Also a window its own program destroyed and created again
//! under the same id, and, as the control, one window asked twice (the same window).
//!
//! Its own bare Xvfb (no window manager: the probe reads the X input focus) on a display number
//! of its own, not the shared test desktop; under a second. Needs `Xvfb` (`scripts/setup.sh
//! --test` installs it).

// Linux only: X11; on macOS this file is empty.
#![cfg(target_os = "linux")]

mod bare_xvfb;

use bare_xvfb::start_xvfb;
use std::thread;
use std::time::{Duration, Instant};
use whisper_dictation::platform::{Focus, FocusProbe};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt, CreateWindowAux, InputFocus, WindowClass};
use x11rb::rust_connection::RustConnection;
use x11rb::{COPY_DEPTH_FROM_PARENT, COPY_FROM_PARENT, CURRENT_TIME};

/// A program's text box: a new X client, its first top-level window mapped and given the input
/// focus (there is no window manager to do it).
fn open_box(display: &str) -> (RustConnection, u32) {
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let root = conn.setup().roots[screen].root;
    let window = conn.generate_id().unwrap();
    create_focused(&conn, root, window);
    (conn, window)
}

fn create_focused(conn: &RustConnection, root: u32, window: u32) {
    conn.create_window(
        COPY_DEPTH_FROM_PARENT,
        window,
        root,
        0,
        0,
        200,
        100,
        0,
        WindowClass::INPUT_OUTPUT,
        COPY_FROM_PARENT,
        &CreateWindowAux::new(),
    )
    .unwrap();
    conn.map_window(window).unwrap();
    conn.set_input_focus(InputFocus::PARENT, window, CURRENT_TIME)
        .unwrap()
        .check()
        .unwrap();
}

fn window_id(focus: Focus) -> u32 {
    match focus {
        Focus::Window { id, .. } => id,
        other => panic!("not an X window: {other:?}"),
    }
}

#[test]
fn a_new_window_that_got_a_closed_ones_id_is_not_the_same_window() {
    let xvfb = start_xvfb(600..700);
    std::env::set_var("DISPLAY", &xvfb.display);
    let probe = FocusProbe::new().expect("a focus probe on the Xvfb");
    // Sees a window disappear; connected before the boxes' programs, so it holds a slot of
    // its own, as the app's probe does.
    let (observer, _) = x11rb::connect(Some(&xvfb.display)).unwrap();

    let (first_program, first_box) = open_box(&xvfb.display);
    let first = probe.focused().expect("the first box's focus");
    assert_eq!(window_id(first), first_box);
    // Asked again while it lives: the same window (texts into it are joined).
    let first_again = probe.focused().unwrap();
    assert!(
        first.same_window(&first_again),
        "{first:?} vs {first_again:?}"
    );

    // The first program closes; wait until the server has let it go (its window is gone).
    drop(first_program);
    let deadline = Instant::now() + Duration::from_secs(5);
    while observer
        .get_window_attributes(first_box)
        .unwrap()
        .reply()
        .is_ok()
    {
        assert!(Instant::now() < deadline, "the first box did not go away");
        thread::sleep(Duration::from_millis(10));
    }

    let (second_program, second_box) = open_box(&xvfb.display);
    let second = probe.focused().expect("the second box's focus");
    // The cause: the second program got the first one's client slot, so its box the same id.
    assert_eq!(
        second_box, first_box,
        "the X server did not give the second program the first one's window id"
    );
    assert_eq!(window_id(second), first_box);
    println!("both boxes are window {first_box:#x}: {first:?} then {second:?}");
    // The fix: not the same window.
    assert!(!first.same_window(&second), "{first:?} vs {second:?}");

    // The same program destroys its box and creates a new one under the same id.
    let root = second_program.setup().roots[0].root;
    second_program
        .destroy_window(second_box)
        .unwrap()
        .check()
        .unwrap();
    create_focused(&second_program, root, second_box);
    let third = probe.focused().expect("the third box's focus");
    assert_eq!(window_id(third), second_box);
    assert!(!second.same_window(&third), "{second:?} vs {third:?}");
    assert!(third.same_window(&probe.focused().unwrap()));
}
