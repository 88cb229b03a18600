//! `smp`: apply, diff and three-way strategic merge patches from the
//! command line, as `kubectl patch --local` does, for the built-in kinds of
//! Kubernetes and any kind an OpenAPI document describes.

mod added_fields;
mod args;
mod batch;
mod builtin;
mod compact_route;
mod documents;
mod explain;
mod flags;
mod input;
mod invocation;
mod key_directives;
mod numbers;
mod op;
mod output;
mod prescan;
mod request;
mod schema;
#[cfg(feature = "server")]
mod serve;
mod server_side;
mod single;
mod textdiff;
mod yaml;
mod yaml_read;
mod yaml_scalar;

use args::Cli;
use clap::Parser;
use documents::Objects;
use invocation::Invocation;
use op::Op;
use output::Failure;
use std::process::ExitCode;

/// Documents are trees of many small allocations: mimalloc makes building
/// and dropping them cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// mimalloc, asked for an alignment only where its plain calls may not
/// give it: every block of mimalloc is aligned to a word, and its aligned
/// calls cost more (a block whose start is not aligned is taken larger
/// than asked and used from inside, and freeing it then looks for its
/// start).
struct Allocator;

/// What every block of mimalloc is aligned to.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: the calls are mimalloc's, which meets `GlobalAlloc`'s contract:
// blocks of the size asked for, aligned to a word at least, and aligned
// calls where the layout asks for more.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: mimalloc's allocation, of a non-zero size.
            unsafe { libmimalloc_sys::mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: as `mimalloc::MiMalloc` does.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: as above.
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: as above.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: a block of mimalloc, aligned or not.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: a block of mimalloc's plain calls (its alignment is a word).
            unsafe { libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            // SAFETY: a block of mimalloc's aligned calls.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

fn main() -> ExitCode {
    purge_after_50_ms();
    // The YAML parser's panics are errors (see `yaml_read`): not printed.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !yaml_read::is_parser_panic(info) {
            report(info);
        }
    }));
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if server_side::wanted(&args) {
        return server_side::main(args);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    #[cfg(feature = "server")]
    let cli = match cli.command {
        args::Command::Serve { listen, kubeconfig, log } => return serve::run(listen, kubeconfig, log),
        command => Cli { command },
    };
    let invocation = Invocation::from(cli.command);
    // check's errors exit with 1, as its findings do.
    let exit_code = invocation.exit_code && invocation.op != Op::Check;
    let format = invocation.common.format();
    match invocation.run() {
        Ok(status) => status,
        Err(failure) => failure.report(format, exit_code),
    }
}

/// mimalloc gives memory back to the system 10 ms after it is freed
/// ("purging"), and the kernel zeroes every page touched again after that:
/// a run that frees documents and allocates the next ones gives pages back
/// and takes them again, which costs time. After 50 ms instead, work
/// shorter than that (nearly every case of a batch, and whole runs on
/// documents up to some ten megabytes) keeps what it frees for its next
/// allocations, while a long run still gives back what it no longer uses,
/// which keeps its peak memory down (`docs/performance.md`, Memory, has
/// the measurements).
fn purge_after_50_ms() {
    /// `mi_option_purge_delay` (milliseconds, -1: never), which the sys crate
    /// does not name: its place in mimalloc's `mi_option_e`, in v2 and v3.
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: mimalloc's option setter is not thread safe; it runs first
    // in `main`, before any other thread exists.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 50) };
}

/// Prints clap's message; bad usage exits with 1 (2 means a conflict), and
/// so does help or a version that cannot be written.
fn usage_error(e: clap::Error) -> ExitCode {
    match e.print() {
        Ok(()) if !e.use_stderr() => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(1),
        Err(write) => {
            output::to_stderr(format_args!("error: cannot write output: {write}\n"));
            ExitCode::from(1)
        }
    }
}

impl Invocation {
    fn run(mut self) -> Result<ExitCode, Failure> {
        flags::refuse_what_does_not_apply(&self)?;
        output::check_stdout()?;
        // check reads merge keys: it is strategic whatever the CRD's default.
        self.common.schema.patch_type = match self.op {
            Op::Check => args::PatchType::Strategic,
            _ => self.common.schema.effective_type(),
        };
        let serves = match self.common.schema.patch_type {
            args::PatchType::Strategic => {
                schema::Use::Merge { all_keys: self.ext.patch_merge_key || self.op == Op::Check }
            }
            _ if self.ext.strict => schema::Use::Fields,
            _ => schema::Use::Nothing,
        };
        let docs = schema::load_documents(&self.common.schema, serves)?;
        // (Before the patch type makes the schema untyped.)
        let objects = match &self.common.schema {
            s if s.untyped || !s.openapi.is_empty() => Objects::Any,
            _ => Objects::Kubernetes,
        };
        // Merge and JSON patches take no patch metadata (only --strict's
        // fields).
        if serves == schema::Use::Nothing {
            self.common.schema.untyped = true;
        }
        let mut resolver = schema::Resolver::new(&self.common.schema, &docs)?;
        if let Some(source) = &self.common.jsonl {
            let batch = batch::Batch {
                op: self.op,
                overwrite: self.overwrite,
                ext: self.ext,
                found: Default::default(),
                max_line: self.common.max_line(),
                schema: &self.common.schema,
                documents: &docs,
            };
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            // More threads than cores only wait (and each costs a stack,
            // which a memory limit may refuse half-way, past recovery).
            let jobs = self.common.jobs.map_or(cores, usize::from).min(cores);
            batch::run(&batch, source, jobs)?;
            let found = batch.found.load(std::sync::atomic::Ordering::Relaxed);
            return Ok(if found { ExitCode::from(1) } else { ExitCode::SUCCESS });
        }
        let request = request::Request {
            op: self.op,
            inputs: self.inputs.iter().flatten().collect(),
            inline_patch: self.inline_patch.as_deref(),
            overwrite: self.overwrite,
            from_annotation: self.from_annotation,
            recursive: self.files.recursive,
            explain: self.files.explain,
            diff: self.files.diff,
            format: self.common.format(),
            exit_code: self.exit_code,
            patch_type: self.common.schema.patch_type,
            ext: self.ext,
            objects,
        };
        request.run(&mut resolver)
    }
}
