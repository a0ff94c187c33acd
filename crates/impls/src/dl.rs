//! Run-time loading of C libraries: a macro that declares a struct of function pointers and
//! resolves them with dlopen/dlsym (libloading). Loading at run time, rather than linking, lets
//! a worker report a missing library as "unavailable" with the reason instead of failing to start,
//! and lets one binary load any build of a library by path.

#[macro_export]
macro_rules! dynamic_api {
    (
        $api:ident, $what:literal;
        required { $($name:ident : fn($($arg:ty),*) $(-> $ret:ty)?;)* }
        optional { $($oname:ident : fn($($oarg:ty),*) $(-> $oret:ty)?;)* }
    ) => {
        /// Function pointers into one loaded library. They stay valid while `_lib` lives.
        #[allow(non_snake_case, clippy::type_complexity)]
        pub struct $api {
            _lib: libloading::Library,
            #[allow(dead_code)] // not every table reports its path
            pub path: String,
            $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
            $(pub $oname: Option<unsafe extern "C" fn($($oarg),*) $(-> $oret)?>,)*
        }

        #[allow(non_snake_case, clippy::macro_metavars_in_unsafe)]
        impl $api {
            pub fn load(path: &str) -> Result<$api, String> {
                // SAFETY: loading the library runs its constructors, which have no preconditions;
                // every symbol is declared with the C prototype of the library's headers.
                unsafe {
                    let lib = $crate::dl::open(path)?;
                    $(
                        let $name = *lib
                            .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(concat!(stringify!($name), "\0").as_bytes())
                            .map_err(|e| format!("{path} is not a usable {}: it lacks {} ({e})", $what, stringify!($name)))?;
                    )*
                    $(
                        let $oname = lib
                            .get::<unsafe extern "C" fn($($oarg),*) $(-> $oret)?>(concat!(stringify!($oname), "\0").as_bytes())
                            .ok()
                            .map(|s| *s);
                    )*
                    Ok($api { _lib: lib, path: path.to_string(), $($name,)* $($oname,)* })
                }
            }

            /// Any other symbol of the library by name (an accessor such as `EVP_cast5_cbc`).
            #[allow(dead_code)] // not every table needs it
            pub fn symbol(&self, name: &str) -> Option<*mut std::ffi::c_void> {
                let mut c = name.as_bytes().to_vec();
                c.push(0);
                // SAFETY: only the symbol's address is read; the caller gives it its prototype.
                unsafe {
                    self._lib
                        .get::<*mut std::ffi::c_void>(&c)
                        .ok()
                        .map(|s| *s)
                        .filter(|p| !p.is_null())
                }
            }
        }
    };
}

/// Opens the library at `path` binding its own symbols first (RTLD_DEEPBIND): the binary links
/// the system libcrypto, and a second OpenSSL 3 build loaded by path (`openssl:PATH`, a gate's
/// base or head) would otherwise resolve its internal calls to the system copy's, whose
/// providers its own library context never sees (every fetch fails).
pub fn open(path: &str) -> Result<libloading::Library, String> {
    let flags = libc::RTLD_LAZY | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND;
    // SAFETY: as libloading::Library::new: loading runs the library's constructors.
    unsafe { libloading::os::unix::Library::open(Some(path), flags) }
        .map(libloading::Library::from)
        .map_err(|e| format!("cannot load {path}: {e}"))
}
