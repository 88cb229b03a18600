//! Runs server-side apply over a JSON Lines file, for comparison with the
//! Go reference (`smpgo ssaapply|ssaupdate`): `SSA_IN` (input lines),
//! `SSA_OP` (`ssaapply` or `ssaupdate`), `SSA_DOC` (an OpenAPI v3 document),
//! `SSA_DEF` (a definition; default: the kind's), writes `SSA_OUT`.
//! Without `SSA_IN`, the test does nothing.

use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema};

#[test]
fn jsonl_from_env() {
    let Ok(input) = std::env::var("SSA_IN") else { return };
    let op = std::env::var("SSA_OP").unwrap_or_else(|_| "ssaapply".into());
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(std::env::var("SSA_DOC").unwrap()).unwrap()).unwrap();
    let schema = Schema::from_openapi_v3(&doc).unwrap();
    let def = std::env::var("SSA_DEF").ok().filter(|d| !d.is_empty());
    let mut out = String::new();
    for line in std::fs::read_to_string(input).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let obj = if op == "ssaapply" { &v["applied"] } else { &v["new"] };
        let av = obj["apiVersion"].as_str().unwrap_or("");
        let k = obj["kind"].as_str().unwrap_or("");
        let res = match &def {
            Some(d) => Resource::for_definition(&schema, d, Some((av, k))).unwrap(),
            None => Resource::for_kind(&schema, av, k).unwrap(),
        };
        let live = if v["live"].is_null() { None } else { Some(&v["live"]) };
        let now = v["now"].as_str().unwrap_or("2030-01-01T00:00:00Z");
        let r = if op == "ssaapply" {
            ssa::apply(&res, live, obj, v["manager"].as_str().unwrap(), v["force"].as_bool().unwrap_or(false), now)
        } else {
            ssa::update(&res, live, obj, v["manager"].as_str().unwrap(), now)
        };
        let o = match r {
            Ok(r) => json!({"result": r}),
            Err(ssa::Error::Conflicts(c)) => {
                let list: Vec<Value> =
                    c.sorted().iter().map(|c| json!({"manager": c.manager, "field": c.field})).collect();
                json!({"error": c.to_string(), "conflicts": list})
            }
            Err(e) => json!({"error": e.to_string()}),
        };
        out.push_str(&o.to_string());
        out.push('\n');
    }
    std::fs::write(std::env::var("SSA_OUT").unwrap(), out).unwrap();
}
