//! (being written) The paste keystroke and typed text through zwp_virtual_keyboard_v1.
