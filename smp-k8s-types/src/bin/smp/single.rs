//! One run over files: read every object, run the operation on each with
//! the schema of its kind, print the documents, their names, or a diff of
//! each object, and optionally an account of what each patch did.

use crate::args::{Format, PatchType, Source};
use crate::documents::{self, Document};
use crate::op::{Op, apply_as};
use crate::output::{self, Failure};
use crate::request::Request;
use crate::schema::Resolver;
use crate::{explain, input, numbers, textdiff};
use serde_json::{Value, json};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

/// The annotation `kubectl apply` keeps the last applied configuration in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// One object's documents, in the order of [`Op::inputs`], and where it
/// came from.
struct Case {
    origin: String,
    docs: Vec<Value>,
}

impl Request<'_> {
    /// Runs the request and prints the answer.
    pub fn run(&self, resolver: &mut Resolver<'_>) -> Result<ExitCode, Failure> {
        if self.inputs.iter().filter(|s| matches!(s, Source::Stdin)).count() > 1 {
            return Err(Failure::Error("only one input can be read from stdin (-)".into()));
        }
        if self.from_annotation && self.inputs.len() != 2 {
            return Err(Failure::Error("with --from-annotation, give MODIFIED and CURRENT only".into()));
        }
        if let Some(answer) = crate::compact_route::run(self, resolver) {
            return answer;
        }
        let (layout, cases) = self.cases()?;
        let names = self.op.inputs();
        let several = cases.len() > 1;
        let mut answers = Vec::with_capacity(cases.len());
        for case in &cases {
            let within = |message: String| {
                if several {
                    format!("{} ({}): {message}", case.origin, documents::name_of(subject(self.op, &case.docs)))
                } else {
                    message
                }
            };
            let schema = resolver.schema_for(&case.docs, names).map_err(within)?;
            let mut answer =
                self.op.run(&case.docs, self.overwrite, schema, self.patch_type, self.ext).map_err(|e| {
                    match Failure::from(e) {
                        Failure::Error(message) => Failure::Error(within(message)),
                        other => other,
                    }
                })?;
            if self.op == Op::Apply && self.patch_type == PatchType::Strategic {
                // kubectl prints the object it reads back from the JSON the
                // strategic library wrote (its `-0` is the integer 0). The
                // merge and JSON patch libraries give the patch's values
                // as they were written instead.
                numbers::read_back(&mut answer);
            }
            if self.explain || self.diff {
                let (before, patch, after) = self.before_after(&case.docs, &answer, schema)?;
                if self.explain {
                    self.print_explanation(subject(self.op, &case.docs), &before, &patch, &after, schema, several)?;
                }
                if self.diff {
                    self.print_diff(subject(self.op, &case.docs), &before, &after)?;
                }
            }
            answers.push(answer);
        }
        let changed = match self.op {
            Op::Apply => false,
            // Findings: check exits with 1 when there are some.
            Op::Check => answers.iter().any(|a| a.as_array().is_some_and(|f| !f.is_empty())),
            _ => answers.iter().any(|a| a.as_object().is_none_or(|m| !m.is_empty())),
        };
        if !self.diff {
            self.print(&layout, &cases, answers)?;
        }
        Ok(if self.exit_code && changed { ExitCode::from(1) } else { ExitCode::SUCCESS })
    }

    /// Reads the inputs and pairs their objects into cases. The layout is
    /// the documents of the first input, for apply's output.
    fn cases(&self) -> Result<(Vec<Document>, Vec<Case>), String> {
        let read = |source: &Source, what: &str| documents::read(source, what, self.recursive, self.objects);
        let names = self.op.inputs();
        let first = read(self.inputs[0], if self.from_annotation { names[1] } else { names[0] })?;
        let cases = match self.op {
            Op::Apply => {
                let patch = self.patch()?;
                let objects = documents::objects(&first);
                let case = |(origin, object): (&str, &Value)| Case {
                    origin: origin.into(),
                    docs: vec![object.clone(), patch.clone()],
                };
                objects.into_iter().map(case).collect()
            }
            Op::ThreeWay if self.from_annotation => {
                let current = read(self.inputs[1], names[2])?;
                let modified = documents::objects(&first);
                let current = documents::objects(&current);
                let pairs = pair(&[modified.as_slice(), current.as_slice()], &names[1..])?;
                pairs
                    .into_iter()
                    .zip(&current)
                    .map(|((origin, mut docs), (live, _))| {
                        // The annotation is the live object's.
                        let original = last_applied(&docs[1]).map_err(|e| format!("{live}: {e}"))?;
                        // As kubectl apply, the desired object carries its
                        // own JSON as the new last-applied configuration,
                        // so the patch records it.
                        docs[0] = smp_k8s_types::kubectl::with_last_applied(&docs[0])
                            .map_err(|e| format!("{origin}: {e}"))?;
                        docs.insert(0, original);
                        Ok(Case { origin, docs })
                    })
                    .collect::<Result<_, String>>()?
            }
            _ => {
                let rest: Vec<Vec<Document>> =
                    self.inputs[1..].iter().zip(&names[1..]).map(|(s, n)| read(s, n)).collect::<Result<_, _>>()?;
                let mut lists = vec![documents::objects(&first)];
                lists.extend(rest.iter().map(|d| documents::objects(d)));
                let lists: Vec<&[(&str, &Value)]> = lists.iter().map(Vec::as_slice).collect();
                pair(&lists, names)?.into_iter().map(|(origin, docs)| Case { origin, docs }).collect()
            }
        };
        Ok((first, cases))
    }

    /// apply's patch: `-p` text or one document from a file.
    fn patch(&self) -> Result<Value, String> {
        if self.patch_type == PatchType::Json {
            return self.operations();
        }
        if let Some(text) = self.inline_patch {
            let patch = input::parse_any(inline(text)?).map_err(|e| format!("patch (-p): {e}"))?;
            return match patch {
                // The reference's merge patch refuses null ("Invalid JSON Patch").
                Value::Null if self.patch_type == PatchType::Merge => {
                    Err("patch (-p): a merge patch is an object, not null".into())
                }
                Value::Null => Ok(json!({})),
                patch @ Value::Object(_) => Ok(patch),
                other => Err(format!("patch (-p): the document must be an object, not {}", input::type_name(&other))),
            };
        }
        let source = self.inputs[1];
        let mut values = documents::read(source, "patch", false, self.objects)?;
        match (values.len(), values.pop().map(|d| d.body)) {
            (1, Some(documents::Body::Object(patch))) => Ok(patch),
            _ => Err(format!("{}: a patch is one object", input::describe(source, "patch"))),
        }
    }

    /// apply's JSON patch: a list of operations, in JSON or YAML.
    fn operations(&self) -> Result<Value, String> {
        let (bytes, what) = match self.inline_patch {
            Some(text) => (inline(text)?.to_vec(), "patch (-p)".to_string()),
            None => (input::read(self.inputs[1], "patch")?, input::describe(self.inputs[1], "patch")),
        };
        match input::parse_any(&bytes).map_err(|e| format!("{what}: {e}"))? {
            ops @ Value::Array(_) => Ok(ops),
            // The reference's library reads `null` as no operations.
            Value::Null => Ok(json!([])),
            other => Err(format!("{what}: a JSON patch is a list of operations, not {}", input::type_name(&other))),
        }
    }

    /// The object before, the patch and the object after, for --explain
    /// and --diff: apply's input and result; the two-way patch applied to
    /// the original; the three-way patch applied to the live object.
    fn before_after(
        &self,
        docs: &[Value],
        answer: &Value,
        schema: smp_core::Schema<'_>,
    ) -> Result<(Value, Value, Value), Failure> {
        // The computed patch is applied as its receiver would (never strict).
        let options = smp_core::ApplyOptions { patch_merge_key: self.ext.patch_merge_key, strict: false };
        let apply = |doc: &Value| apply_as(self.patch_type, doc, answer, schema, options);
        let (before, patch, after) = match self.op {
            Op::Apply => (docs[0].clone(), docs[1].clone(), answer.clone()),
            // check changes nothing.
            Op::Check => (docs[0].clone(), json!({}), docs[0].clone()),
            Op::Diff => (docs[0].clone(), answer.clone(), apply(&docs[0])?),
            Op::ThreeWay => (docs[2].clone(), answer.clone(), apply(&docs[2])?),
        };
        // A JSON patch is a list of operations: its account is that of the
        // merge patch with the same effect.
        let patch = match self.patch_type {
            PatchType::Json => smp_core::merge_patch::create(&before, &after)?,
            _ => patch,
        };
        Ok((before, patch, after))
    }

    fn print_explanation(
        &self,
        object: &Value,
        before: &Value,
        patch: &Value,
        after: &Value,
        schema: smp_core::Schema<'_>,
        several: bool,
    ) -> Result<(), Failure> {
        let mut err = io::stderr().lock();
        let mut write = || -> io::Result<()> {
            if several {
                writeln!(err, "# {}", documents::name_of(object))?;
            }
            for line in explain::explain(before, patch, after, schema) {
                writeln!(err, "{line}")?;
            }
            err.flush()
        };
        write().map_err(|e| Failure::Error(format!("cannot write the explanation to stderr: {e}")))
    }

    fn print_diff(&self, object: &Value, before: &Value, after: &Value) -> Result<(), Failure> {
        let format = Format::Yaml;
        let name = documents::name_of(object);
        let colour = io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        let text = textdiff::unified(&output::render(before, format), &output::render(after, format), &name, colour);
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(output::output_error)
    }

    /// Prints the answers: apply's results in the shape of the input (a
    /// list stays a list), patches one per object; or names.
    fn print(&self, layout: &[Document], cases: &[Case], answers: Vec<Value>) -> Result<(), Failure> {
        let mut out = BufWriter::new(io::stdout().lock());
        if self.op == Op::Check {
            return print_findings(&mut out, cases, &answers).and_then(|()| out.flush()).map_err(output::output_error);
        }
        let written = match self.format {
            Format::Name => {
                let names: Vec<String> = match self.op {
                    Op::Apply => answers.iter().map(documents::name_of).collect(),
                    _ => cases
                        .iter()
                        .zip(&answers)
                        .filter(|(_, patch)| patch.as_object().is_none_or(|m| !m.is_empty()))
                        .map(|(case, _)| documents::name_of(subject(self.op, &case.docs)))
                        .collect(),
                };
                names.iter().try_for_each(|name| writeln!(out, "{name}"))
            }
            format => {
                let docs = if self.op == Op::Apply { documents::reassemble(layout, answers) } else { answers };
                docs.iter().enumerate().try_for_each(|(i, doc)| {
                    if i > 0 && format == Format::Yaml {
                        out.write_all(b"---\n")?;
                    }
                    output::write_document(&mut out, doc, format)
                })
            }
        };
        written.and_then(|()| out.flush()).map_err(output::output_error)
    }
}

/// check's findings, one line each: `path: why`, after the object's name
/// when there are several objects.
fn print_findings(out: &mut impl Write, cases: &[Case], answers: &[Value]) -> io::Result<()> {
    for (case, findings) in cases.iter().zip(answers) {
        let name = if cases.len() > 1 { format!("{}: ", documents::name_of(&case.docs[0])) } else { String::new() };
        for f in findings.as_array().into_iter().flatten() {
            writeln!(out, "{name}{}", f["message"].as_str().unwrap_or_default())?;
        }
    }
    Ok(())
}

/// The object a case is about: the original for apply and diff, the live
/// object for three-way.
fn subject(op: Op, docs: &[Value]) -> &Value {
    match op {
        Op::ThreeWay => &docs[2],
        _ => &docs[0],
    }
}

/// Pairs the objects of each input by position; the inputs must hold as
/// many objects each.
fn pair(lists: &[&[(&str, &Value)]], names: &[&str]) -> Result<Vec<(String, Vec<Value>)>, String> {
    let counts: Vec<usize> = lists.iter().map(|l| l.len()).collect();
    if counts.windows(2).any(|w| w[0] != w[1]) {
        let said: Vec<String> = names.iter().zip(&counts).map(|(n, c)| format!("{n}: {c}")).collect();
        return Err(format!(
            "the inputs hold different numbers of objects ({}); objects are paired in order",
            said.join(", ")
        ));
    }
    Ok((0..counts[0])
        .map(|i| {
            let origin = lists[0][i].0.to_string();
            (origin, lists.iter().map(|l| l[i].1.clone()).collect())
        })
        .collect())
}

/// The last applied configuration of a live object, as kubectl reads it:
/// none is an empty object.
pub fn last_applied(current: &Value) -> Result<Value, String> {
    match current.pointer("/metadata/annotations").and_then(|a| a.get(LAST_APPLIED)) {
        None | Some(Value::Null) => Ok(json!({})),
        Some(Value::String(text)) => {
            input::parse_document(text.as_bytes()).map_err(|e| format!("annotation {LAST_APPLIED}: {e}"))
        }
        Some(other) => Err(format!("annotation {LAST_APPLIED} must be a string, not {}", input::type_name(other))),
    }
}

/// The text of `-p`, which kubectl refuses when empty.
fn inline(text: &str) -> Result<&[u8], String> {
    if text.is_empty() {
        return Err("patch (-p) is empty: give the patch's text".into());
    }
    Ok(text.as_bytes())
}
