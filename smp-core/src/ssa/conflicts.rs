//! Apply conflicts, named and printed as the API server names and prints
//! them (`managedfields/internal.NewConflictError`).

use super::fieldpath::Path;
use super::managed::ManagerId;
use std::fmt;

/// One conflict: a field the apply would change that another manager owns.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The other manager's name.
    pub manager: String,
    /// The field, as the reference prints paths:
    /// `.spec.template.spec.containers[name="web"].image`.
    pub field: String,
    pub(crate) identifier: String,
    pub(crate) path: Path,
}

impl Conflict {
    /// The other manager as the updater knows it: the identifier of a
    /// `managedFields` entry, or the name given to an [`super::Updater`].
    pub fn identifier(&self) -> &str {
        &self.identifier
    }

    pub(crate) fn new(identifier: &str, path: Path) -> Self {
        Conflict {
            manager: ManagerId::parse(identifier).manager,
            field: path.to_string(),
            identifier: identifier.to_string(),
            path,
        }
    }
}

/// The conflicts of an apply, in the order the reference finds them.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflicts(pub Vec<Conflict>);

impl Conflicts {
    /// The conflicts sorted by manager, then field.
    pub fn sorted(&self) -> Vec<Conflict> {
        let mut v = self.0.clone();
        v.sort_by(|a, b| a.manager.cmp(&b.manager).then_with(|| a.field.cmp(&b.field)));
        v
    }
}

impl fmt::Display for Conflicts {
    /// The server's message: `Apply failed with 1 conflict: conflict with
    /// "m" using apps/v1: .spec.replicas`, or one line per manager (sorted)
    /// and per field.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.len() == 1 {
            let c = &self.0[0];
            return write!(
                f,
                "Apply failed with 1 conflict: conflict with {}: {}",
                ManagerId::print(&c.identifier),
                c.field
            );
        }
        let mut ids: Vec<&str> = self.0.iter().map(|c| c.identifier.as_str()).collect();
        ids.sort();
        ids.dedup();
        write!(f, "Apply failed with {} conflicts: ", self.0.len())?;
        let mut lines = Vec::new();
        for id in ids {
            lines.push(format!("conflicts with {}:", ManagerId::print(id)));
            for c in self.0.iter().filter(|c| c.identifier == id) {
                lines.push(format!("- {}", c.field));
            }
        }
        f.write_str(&lines.join("\n"))
    }
}
