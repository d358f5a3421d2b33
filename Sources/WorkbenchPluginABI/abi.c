/* The plugin ABI is a header only; this file gives the target a body. */
