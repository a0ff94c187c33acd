//! Tests of a variant's build: what reaches the shell, labels, the steps a build runs and the
//! cache key they make (a changed step is another key), a default label handed on.

use super::*;

#[test]
fn shell_characters_never_reach_make() {
    for ok in [
        "-O2",
        "-march=native",
        "-DFOO=1",
        "no-sse2",
        "/usr/bin/clang-19",
    ] {
        check_make_safe("x", ok).unwrap();
    }
    for bad in [
        "-DX=$(touch p)",
        "a;b",
        "`id`",
        "a b",
        "-D'Q'",
        "x|y",
        "a&",
        "\\n",
    ] {
        let e = check_make_safe("--cflags flag", bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/bin/sh"), "{e}");
    }
}

#[test]
fn labels_say_what_differs() {
    let source = source::SourceInfo {
        kind: "openssl-src crate".into(),
        given: "3.5".into(),
        location: "x".into(),
        version: "3.5.5".into(),
        sha256: "ab".repeat(32),
    };
    let cc = CompilerInfo {
        name: "clang-19".into(),
        path: "/usr/bin/clang-19".into(),
        version: "Debian clang version 19".into(),
    };
    let mut req = BuildRequest {
        source: SourceSpec::Release("3.5".into()),
        cc: "clang-19".into(),
        cflags: vec![],
        no_asm: true,
        configure_args: vec![],
        target: None,
        arch: None,
        c_worker: false,
        label: None,
        jobs: 0,
        rebuild: false,
    };
    assert_eq!(
        default_label(&source, &cc, &req),
        "openssl-3.5.5-clang-19-O3-noasm"
    );
    req.cflags = vec!["-O2".into(), "-march=native".into()];
    req.no_asm = false;
    req.configure_args = vec!["no-sse2".into()];
    assert_eq!(
        default_label(&source, &cc, &req),
        "openssl-3.5.5-clang-19-O2-march=native-no-sse2"
    );
    let dir = source::SourceInfo {
        kind: "directory".into(),
        ..source.clone()
    };
    assert!(default_label(&dir, &cc, &req).starts_with("openssl-3.5.5-srcabababab-clang-19"));
    let k1 = variant_key(&source, &cc, &req, "linux-x86_64");
    req.cflags.pop();
    assert_ne!(k1, variant_key(&source, &cc, &req, "linux-x86_64"));
    if Arch::host() == Some(Arch::X86_64) {
        req.arch = Some("i386".into());
        assert_eq!(
            default_label(&source, &cc, &req),
            "openssl-3.5.5-clang-19-O2-no-sse2-i386"
        );
        req.arch = None;
        req.target = Some("linux-elf".into());
        assert_eq!(
            default_label(&source, &cc, &req),
            "openssl-3.5.5-clang-19-O2-no-sse2-i386"
        );
        assert_ne!(
            variant_key(&source, &cc, &req, "linux-x86"),
            variant_key(&source, &cc, &req, "linux-x86_64")
        );
    }
    // A 64-bit build timed by the C worker is a variant of its own.
    req.target = None;
    let plain = variant_key(&source, &cc, &req, "linux-x86_64");
    req.c_worker = true;
    assert!(default_label(&source, &cc, &req).ends_with("-cworker"));
    assert_ne!(plain, variant_key(&source, &cc, &req, "linux-x86_64"));
}

fn fixture() -> (source::SourceInfo, CompilerInfo, BuildRequest) {
    let source = source::SourceInfo {
        kind: "openssl-src crate".into(),
        given: "3.5".into(),
        location: "x".into(),
        version: "3.5.5".into(),
        sha256: "ab".repeat(32),
    };
    let cc = CompilerInfo {
        name: "gcc".into(),
        path: "/usr/bin/gcc".into(),
        version: "gcc 12".into(),
    };
    let req = BuildRequest {
        source: SourceSpec::Release("3.5".into()),
        cc: "gcc".into(),
        cflags: vec!["-O1".into()],
        no_asm: true,
        configure_args: vec!["no-idea".into()],
        target: None,
        arch: None,
        c_worker: false,
        label: None,
        jobs: 0,
        rebuild: false,
    };
    (source, cc, req)
}

/// The key hashes the commands a build runs (issue 52: no recipe number kept by hand). The
/// steps `Job::run` runs, rendered for a real build directory, file name and make jobs, are
/// the key's steps once those three are put back as the key's placeholders: so a change to
/// how a step is rendered is a change to the key, and a warm cache builds the variant again.
#[test]
fn the_key_hashes_the_steps_a_build_runs() {
    let (_, cc, mut req) = fixture();
    let target = "linux-x86_64";
    for c_worker in [false, true] {
        req.c_worker = c_worker;
        let work = "/tmp/cryptospeed-build-0123456789abcdef-4242";
        let library = match c_worker {
            true => "cryptospeed-worker-0123456789abcdef",
            false => "libcrypto-cryptospeed-0123456789abcdef.so",
        };
        let real = Recipe {
            req: &req,
            compiler: &cc,
            target,
            library: library.into(),
            own_worker: c_worker,
            work: PathBuf::from(work),
        };
        let as_keyed = |argv: Vec<String>| -> Vec<String> {
            argv.into_iter()
                .map(|a| {
                    let a = a.replace(work, KEY_WORK).replace(library, KEY_LIBRARY);
                    if a == "-j7" {
                        format!("-j{KEY_JOBS}")
                    } else {
                        a
                    }
                })
                .collect()
        };
        let ran: Vec<Vec<String>> = [false, true]
            .into_iter()
            .flat_map(|providers| real.steps(providers, 7, &[]))
            .map(|s| as_keyed(s.argv))
            .collect();
        let keyed = key_steps(&cc, &req, target);
        assert_eq!(ran, keyed);
        // Configure, two makes (three with libssl.a: a shared library of a build that keeps
        // TLS), then the link (or the C worker's compile), for each kind of tree; only a 3.x
        // tree (providers/) gets no-module.
        let n = if c_worker { 4 } else { 5 };
        assert_eq!(keyed.len(), 2 * n);
        assert_eq!(keyed[0][..3], ["perl", "Configure", target]);
        assert!(!keyed[0].contains(&"no-module".to_string()));
        assert!(keyed[n].contains(&"no-module".to_string()));
        assert_eq!(keyed[2], ["make", "-j1", "libcrypto.a"]);
        let last = keyed[n - 1].join(" ");
        match c_worker {
            true => assert!(last.contains("/@work/c-worker/worker.c"), "{last}"),
            false => {
                assert_eq!(keyed[3], ["make", "-j1", "libssl.a"]);
                assert!(
                    last.contains("--whole-archive libssl.a libcrypto.a"),
                    "{last}"
                );
                assert!(last.contains("-Wl,-Bsymbolic"), "{last}");
            }
        }
        // Nothing of the machine or of this build's directory is left in what is hashed.
        let all = keyed.concat().join(" ");
        assert!(
            !all.contains("/tmp/") && !all.contains("0123456789abcdef"),
            "{all}"
        );
    }
}

/// Any change to any step, one argument more, one less or one changed, is another key; the
/// same steps are the same key.
#[test]
fn a_changed_build_step_is_another_key() {
    let (source, cc, req) = fixture();
    let target = "linux-x86_64";
    let steps = key_steps(&cc, &req, target);
    let key = variant_key(&source, &cc, &req, target);
    assert_eq!(key, key_of(&source, &cc, &req, target, &steps));
    let mut keys = std::collections::BTreeSet::from([key]);
    let mut changes = 0;
    for i in 0..steps.len() {
        for change in 0..3 {
            let mut changed = steps.clone();
            match change {
                0 => changed[i].push("-Wl,-O1".into()),
                1 => {
                    changed[i].pop();
                }
                _ => changed[i][1] = format!("{}x", changed[i][1]),
            }
            keys.insert(key_of(&source, &cc, &req, target, &changed));
            changes += 1;
        }
    }
    assert_eq!(keys.len(), changes + 1, "two changes gave one key");
    // Moving an argument from one step to the next is a change too.
    let mut moved = steps.clone();
    let flag = moved[0].pop().unwrap();
    moved[1].insert(0, flag);
    assert!(!keys.contains(&key_of(&source, &cc, &req, target, &moved)));
}

#[test]
fn a_default_label_passes_to_the_new_build_and_the_older_keeps_a_name() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::open(Some(tmp.path().to_path_buf()));
    let older = Manifest {
        key: "0123456789abcdef".into(),
        label: "openssl-3.5.5-gcc-O3-i386".into(),
        status: BuildStatus::Ready,
        detail: String::new(),
        source: source::SourceInfo {
            kind: "openssl-src crate".into(),
            given: "3.5".into(),
            location: "x".into(),
            version: "3.5.5".into(),
            sha256: "ab".repeat(32),
        },
        compiler: CompilerInfo {
            name: "gcc".into(),
            path: "/usr/bin/gcc".into(),
            version: "gcc 12".into(),
        },
        cflags: vec![],
        no_asm: false,
        configure_args: vec![],
        target: "linux-x86".into(),
        arch: "i386".into(),
        worker: None,
        configure_command: vec![],
        library: "w".into(),
        build_seconds: 1.0,
        built_at: "2026-11-26T00:00:00Z".into(),
        kats: vec![],
        files: Default::default(),
    };
    let dir = cache.dir_for(&older.key);
    std::fs::create_dir_all(&dir).unwrap();
    save_manifest(&dir, &older).unwrap();
    let said = std::cell::RefCell::new(Vec::new());
    let progress = |m: &str| said.borrow_mut().push(m.to_string());
    // The same key keeps its label; another key takes it over.
    retire_default_label(&cache, &older.label, &older.key, &progress).unwrap();
    assert!(said.borrow().is_empty());
    retire_default_label(&cache, &older.label, "fedcba9876543210", &progress).unwrap();
    let kept = crate::cache::load_manifest(&dir).unwrap();
    assert_eq!(kept.label, "openssl-3.5.5-gcc-O3-i386-01234567");
    assert!(said.borrow()[0].contains("it is now openssl-3.5.5-gcc-O3-i386-01234567"));
    check_label(&cache, &older.label, "fedcba9876543210").unwrap();
    // A label the user chose is refused instead, as before.
    let e = check_label(&cache, &kept.label, "fedcba9876543210").unwrap_err();
    assert!(e.to_string().contains("already names variant"), "{e}");
}

/// A build whose Configure line has `no-tls` (the test suite's cached builds, but for the one
/// `tests/tls_libssl.rs` keeps TLS in) runs the steps it ran before libssl was kept: no
/// `make libssl.a`, libcrypto.a alone in the link, so its key is the one already in the caches.
#[test]
fn a_no_tls_build_links_libcrypto_alone() {
    let (_, cc, mut req) = fixture();
    req.configure_args.push("no-tls".into());
    let keyed = key_steps(&cc, &req, "linux-x86_64");
    assert_eq!(keyed.len(), 8);
    let all = keyed.concat().join(" ");
    assert!(!all.contains("libssl"), "{all}");
    assert!(
        keyed[3]
            .join(" ")
            .contains("-Wl,--whole-archive libcrypto.a -Wl,--no-whole-archive"),
        "{:?}",
        keyed[3]
    );
}
