//! A command line as the operation to run, its inputs and its options.

use crate::args::{Command, Common, FileArgs, Source};
use crate::op::{self, Op};

/// A command with its inputs, in the order of [`Op::inputs`].
pub struct Invocation {
    pub op: Op,
    pub common: Common,
    pub files: FileArgs,
    pub inputs: Vec<Option<Source>>,
    pub inline_patch: Option<String>,
    pub overwrite: bool,
    pub from_annotation: bool,
    pub exit_code: bool,
    pub ext: op::Extensions,
}

impl From<Command> for Invocation {
    fn from(command: Command) -> Self {
        let plain = |op, common, files, inputs| Invocation {
            op,
            common,
            files,
            inputs,
            inline_patch: None,
            overwrite: false,
            from_annotation: false,
            exit_code: false,
            ext: op::Extensions::default(),
        };
        match command {
            Command::Apply { common, files, keys, strict, original, patch, inline_patch } => {
                let ext = op::Extensions { patch_merge_key: keys.patch_merge_key, strict, ..Default::default() };
                Invocation { inline_patch, ext, ..plain(Op::Apply, common, files, vec![original, patch]) }
            }
            Command::Diff { common, files, exit, keys, checked, original, modified } => {
                let ext = op::Extensions { patch_merge_key: keys.patch_merge_key, checked, ..Default::default() };
                Invocation {
                    exit_code: exit.exit_code,
                    ext,
                    ..plain(Op::Diff, common, files, vec![original, modified])
                }
            }
            Command::ThreeWay {
                common,
                files,
                exit,
                keys,
                overwrite,
                from_annotation,
                original,
                modified,
                current,
            } => Invocation {
                overwrite,
                from_annotation,
                exit_code: exit.exit_code,
                ext: op::Extensions { patch_merge_key: keys.patch_merge_key, ..Default::default() },
                ..plain(Op::ThreeWay, common, files, vec![original, modified, current])
            },
            Command::Check { common, recursive, file } => {
                let files = FileArgs { recursive, explain: false, diff: false };
                // Findings make the exit status 1.
                Invocation { exit_code: true, ..plain(Op::Check, common, files, vec![file]) }
            }
            #[cfg(feature = "server")]
            Command::Serve { .. } => unreachable!("`main` runs the server before"),
        }
    }
}
