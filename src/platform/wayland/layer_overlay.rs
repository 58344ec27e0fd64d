//! (being written) The overlay as a zwlr_layer_shell_v1 surface.
