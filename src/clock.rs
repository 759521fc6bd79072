//! A monotonic millisecond clock that works natively and in the browser or Node.
//!
//! `std::time::Instant` panics on `wasm32-unknown-unknown`; there the clock reads
//! `performance.now()` (or `Date.now()` when no `performance` object exists).

/// Milliseconds since an arbitrary origin fixed for the process (monotonic natively).
#[cfg(not(target_arch = "wasm32"))]
pub fn now_ms() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// Milliseconds since an arbitrary origin (`performance.now()` in the browser and Node).
#[cfg(target_arch = "wasm32")]
pub fn now_ms() -> f64 {
    use wasm_bindgen::JsCast;
    let global = js_sys::global();
    if let Ok(perf) = js_sys::Reflect::get(&global, &"performance".into()) {
        if let Ok(now) = js_sys::Reflect::get(&perf, &"now".into()) {
            if let Some(f) = now.dyn_ref::<js_sys::Function>() {
                if let Some(v) = f.call0(&perf).ok().and_then(|v| v.as_f64()) {
                    return v;
                }
            }
        }
    }
    js_sys::Date::now()
}
