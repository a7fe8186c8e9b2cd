//! The command's allocator, chosen once per run by the size of the document.
//!
//! Emitting a large document allocates and frees millions of small nodes across threads: glibc's
//! allocator spent a quarter of such a run in `malloc_consolidate` and arena locks, and mimalloc is
//! 6-20% faster from 200 KB up (prefect 54 -> 50 ms, stripe 189 -> 158 ms, models + client). A
//! small document runs on one thread, where mimalloc's pages of one size class each touch more
//! memory than glibc's packed heap: tictactoe takes 388 page faults with it and 245 without, and
//! every document up to 36 KB is 0.1-0.6 ms faster on glibc's (tictactoe 3.09 -> 2.85 ms).
//!
//! On Linux the choice is made from `.preinit_array`, before any constructor runs and so before
//! anything is allocated: it reads `--spec` from the arguments and the file's size with `stat`.
//! Elsewhere, or when there is no readable `--spec`, mimalloc is used.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Documents below this many bytes are emitted with the C library's allocator.
#[cfg(all(target_os = "linux", not(test)))]
const SMALL_DOCUMENT: i64 = 128 * 1024;

/// Whether this run uses mimalloc. Set before the first allocation and never changed after, so
/// every block is freed by the allocator that made it.
static MIMALLOC: AtomicBool = AtomicBool::new(true);

pub struct Allocator;

// SAFETY: each call goes to one of two allocators that uphold `GlobalAlloc`'s contract, the same
// one for every call of the process (see `MIMALLOC`).
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            if MIMALLOC.load(Relaxed) {
                mimalloc::MiMalloc.alloc(layout)
            } else {
                System.alloc(layout)
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            if MIMALLOC.load(Relaxed) {
                mimalloc::MiMalloc.alloc_zeroed(layout)
            } else {
                System.alloc_zeroed(layout)
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on; `ptr` came from the same allocator.
        unsafe {
            if MIMALLOC.load(Relaxed) {
                mimalloc::MiMalloc.dealloc(ptr, layout)
            } else {
                System.dealloc(ptr, layout)
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on; `ptr` came from the same allocator.
        unsafe {
            if MIMALLOC.load(Relaxed) {
                mimalloc::MiMalloc.realloc(ptr, layout, new_size)
            } else {
                System.realloc(ptr, layout, new_size)
            }
        }
    }
}

/// Runs before any constructor (glibc passes `.preinit_array` functions the arguments).
#[cfg(all(target_os = "linux", not(test)))]
#[used]
#[unsafe(link_section = ".preinit_array")]
static AT_START: extern "C" fn(libc::c_int, *const *const libc::c_char) = at_start;

#[cfg(all(target_os = "linux", not(test)))]
extern "C" fn at_start(argc: libc::c_int, argv: *const *const libc::c_char) {
    without_huge_pages();
    // SAFETY: glibc hands `.preinit_array` functions the process's `argc` and `argv`: `argc`
    // pointers to NUL-terminated strings.
    let args = (0..usize::try_from(argc).unwrap_or(0)).map(|i| unsafe { *argv.add(i) });
    if spec_size(args).is_some_and(|size| size < SMALL_DOCUMENT) {
        MIMALLOC.store(false, Relaxed);
    }
}

/// Transparent huge pages off for this process. mimalloc asks for them, and the kernel then
/// zeroes 2 MB per page the allocator touches, first compacting memory when other processes have
/// fragmented it: run beside openapi-to-rust, stripe took 461 ms with them and 317 ms without,
/// openai 501 and 374, and the peak RSS of every document halves (stripe 128 -> 82 MB). Alone on
/// an idle machine the medium documents lose a little (spotify 63 -> 68 ms). It must come before
/// mimalloc's constructor, which initialises (and touches its first huge page) before `main`.
#[cfg(all(target_os = "linux", not(test)))]
fn without_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and only sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// The size of the file `--spec PATH` (or `--spec=PATH`) names, without allocating.
#[cfg(target_os = "linux")]
fn spec_size(mut args: impl Iterator<Item = *const libc::c_char>) -> Option<i64> {
    use std::ffi::CStr;
    while let Some(arg) = args.next() {
        // SAFETY: every argument is a NUL-terminated string (see `at_start`).
        let bytes = unsafe { CStr::from_ptr(arg) }.to_bytes();
        let path = match bytes.strip_prefix(b"--spec") {
            Some(b"") => args.next()?,
            // The value after `=` starts right after it, in the same string.
            // SAFETY: within the argument, before its NUL.
            Some(rest) if rest.starts_with(b"=") => unsafe { arg.add(b"--spec=".len()) },
            _ => continue,
        };
        // SAFETY: `stat` writes into the zeroed struct; `path` is NUL-terminated.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        return (unsafe { libc::stat(path, &mut stat) } == 0).then_some(stat.st_size);
    }
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn size_of_spec(args: &[&str]) -> Option<i64> {
        let args: Vec<CString> = args.iter().map(|a| CString::new(*a).unwrap()).collect();
        spec_size(args.iter().map(|a| a.as_ptr()))
    }

    #[test]
    fn the_spec_argument_is_found_in_both_spellings() {
        let path = std::env::temp_dir().join(format!("openapi-gen-alloc-{}", std::process::id()));
        std::fs::write(&path, vec![b'x'; 1234]).unwrap();
        let path = path.to_str().unwrap();
        assert_eq!(
            size_of_spec(&["openapi-gen", "generate", "--spec", path]),
            Some(1234)
        );
        assert_eq!(
            size_of_spec(&["openapi-gen", "generate", &format!("--spec={path}")]),
            Some(1234)
        );
        assert_eq!(size_of_spec(&["openapi-gen", "generate", "--spec"]), None);
        assert_eq!(
            size_of_spec(&["openapi-gen", "--spec", "/nonexistent/x.yaml"]),
            None
        );
        assert_eq!(size_of_spec(&["openapi-gen", "--specs", path]), None);
        std::fs::remove_file(path).unwrap();
    }
}
