//! WebAssembly bindings (placeholder module filled in below).
