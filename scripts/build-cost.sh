#!/usr/bin/env bash
# What smp costs the build of a program that uses it, measured in that
# program's crate, not in ours.
#
# Makes throwaway binary crates in a temporary folder, each built clean
# (its own target directory, no incremental caches), and prints a table of
# wall time, CPU time (user and system, every rustc of the build), the
# time of the units that matter (the program's own crate, k8s-openapi,
# smp-core) and the binary's size, with the ratios of each "smp" crate to
# its "base" twin:
#
#   base       k8s-openapi + serde_json: reads and prints a Deployment, Pod,
#              Service, StatefulSet and ConfigMap
#   smp        the same, plus diff and apply on those five kinds
#   one-base   base with one kind, a ConfigMap
#   one-smp    smp with one kind: with the five-kinds pair, the table then
#              gives what four more kinds add to each (the per-type cost,
#              apart from what a program pays once whatever it names)
#   cr-base    a custom resource spec embedding a PodTemplateSpec, read and
#              printed
#   cr-smp     the same spec deriving StrategicMerge, diffed and applied
#   op-base    an operator: kube's client (rustls, tokio), a custom resource
#              whose spec embeds a PodTemplateSpec, and a Deployment, each
#              read, changed and sent back as a JSON merge patch
#   op-smp     the same operator sending smp's patches (strategic for the
#              Deployment, the custom resource's route for the resource)
#
#   The op pair is not built by default (kube's dependencies make it
#   several times longer): CRATES="op-base op-smp".
#
#   scripts/build-cost.sh                    # debug and release
#   PROFILES=debug scripts/build-cost.sh     # one profile
#   CRATES="base smp" scripts/build-cost.sh  # some crates
#   KEEP=1 scripts/build-cost.sh             # keep the folder (printed)
#   ROUNDS=3 scripts/build-cost.sh           # each crate built 3 times
#
# With ROUNDS=N the crates are built in turn N times (base, smp, base,
# smp...), so that a slow spell of the machine falls on both twins, and the
# table gives each figure's median. One clean release build's wall time
# moves by 10% from one run to the next on a 2-core machine, which is the
# size of the differences the ratios are read for: measure with ROUNDS=3.
#
# Unit times come from `cargo build --timings` (its HTML report holds the
# units' durations). The crates take the workspace's Cargo.lock, so that
# they build the same dependency versions as the workspace. Builds run one
# after another; on a loaded machine compare ratios of one run, not
# figures of different runs (the load is printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
profiles=${PROFILES:-"debug release"}
crates=${CRATES:-"base smp cr-base cr-smp"}
work=$(mktemp -d "${TMPDIR:-/tmp}/smp-build-cost.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export CARGO_INCREMENTAL=0

manifest() { # name, extra dependencies, k8s-openapi features
  cat <<EOF
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
k8s-openapi = { version = "0.29", features = [$3] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
$2

[workspace]
EOF
}

five='Deployment Pod Service StatefulSet ConfigMap'

read_fn='fn read<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text).expect("an object")
}'

# Kinds read from the command line's arguments (or `{}`), then printed
# (base) or diffed against a changed copy and patched (smp).
kinds_program() { # smp or base, the kinds
  local kind
  for kind in $2; do
    case "$kind" in
      Deployment | StatefulSet) echo "use k8s_openapi::api::apps::v1::$kind;" ;;
      *) echo "use k8s_openapi::api::core::v1::$kind;" ;;
    esac
  done
  echo "$read_fn"
  cat <<'EOF'
fn arg(i: usize) -> String {
    std::env::args().nth(i).unwrap_or_else(|| "{}".to_owned())
}
EOF
  if [ "$1" = smp ]; then
    cat <<'EOF'
use smp_k8s_types::StrategicMerge;
fn roundtrip<T: StrategicMerge + std::fmt::Debug>(live: T, desired: T) {
    let patch = live.diff(&desired).expect("a patch");
    let merged = live.apply(&patch).expect("applied");
    println!("{patch} {}", merged == desired);
}
EOF
    echo "fn main() {"
    for kind in $2; do echo "    roundtrip::<$kind>(read(&arg(1)), read(&arg(2)));"; done
    echo "}"
  else
    cat <<'EOF'
fn show<T: serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) {
    let value: T = read(text);
    println!("{}", serde_json::to_string(&value).expect("JSON"));
}
EOF
    echo "fn main() {"
    for kind in $2; do echo "    show::<$kind>(&arg(1));"; done
    echo "}"
  fi
}

custom_resource() { # smp or base
  local derive="" attr="" use=""
  if [ "$1" = smp ]; then
    derive=", smp_k8s_types::StrategicMerge"
    attr='#[patch(strategy = "merge", merge_key = "name")]'
    use="use smp_k8s_types::StrategicMerge;"
  fi
  cat <<EOF
$use
use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde::{Deserialize, Serialize};
$read_fn

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize$derive)]
struct Worker {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize$derive)]
#[serde(rename_all = "camelCase")]
struct BackendSpec {
    template: PodTemplateSpec,
    $attr
    #[serde(default)]
    workers: Vec<Worker>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    paused: Option<bool>,
}
EOF
  if [ "$1" = smp ]; then
    cat <<'EOF'
fn main() {
    let live: BackendSpec = read(&std::env::args().nth(1).unwrap_or_else(|| "{\"template\":{}}".into()));
    let mut desired = live.clone();
    desired.workers.push(Worker { name: "w".into(), replicas: Some(2) });
    let patch = live.diff(&desired).expect("a patch");
    println!("{patch} {}", live.apply(&patch).expect("applied") == desired);
}
EOF
  else
    cat <<'EOF'
fn main() {
    let live: BackendSpec = read(&std::env::args().nth(1).unwrap_or_else(|| "{\"template\":{}}".into()));
    println!("{}", serde_json::to_string(&live).expect("JSON"));
}
EOF
  fi
}

# An operator's reconcile pass, with kube's client: the custom resource
# and a Deployment, read, changed and patched back.
operator() { # smp or base
  local derive="" kube_derive="" attr="" use=""
  if [ "$1" = smp ]; then
    derive=", StrategicMerge"
    kube_derive='#[kube(derive = "PartialEq", derive = "StrategicMerge")]'
    attr='#[patch(strategy = "merge", merge_key = "name")]'
    use="use smp_k8s_types::StrategicMerge;
use smp_k8s_types::api::PatchFrom;"
  fi
  cat <<EOF
$use
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::PodTemplateSpec;
use kube::api::{Api, PatchParams};
use kube::{Client, CustomResource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema$derive)]
pub struct Worker {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema$derive)]
#[kube(group = "example.com", version = "v1", kind = "Backend", namespaced)]
$kube_derive
#[serde(rename_all = "camelCase")]
pub struct BackendSpec {
    template: PodTemplateSpec,
    $attr
    #[serde(default)]
    workers: Vec<Worker>,
}

fn scale(mut d: Deployment) -> Deployment {
    d.spec.replicas = Some(3);
    d
}

fn add_worker(mut b: Backend) -> Backend {
    b.spec.workers.push(Worker { name: "w".into(), replicas: Some(2) });
    b
}
EOF
  if [ "$1" = smp ]; then
    cat <<'EOF'
async fn reconcile(client: Client) -> Result<(), Box<dyn std::error::Error>> {
    let params = PatchParams::default();
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let live = deployments.get("web").await?;
    deployments.patch_from("web", &live, &scale(live.clone()), &params).await?;
    let backends: Api<Backend> = Api::default_namespaced(client);
    let live = backends.get("backend").await?;
    backends.patch_from_with_lock("backend", &live, &add_worker(live.clone()), &params).await?;
    Ok(())
}
EOF
  else
    cat <<'EOF'
async fn reconcile(client: Client) -> Result<(), Box<dyn std::error::Error>> {
    let params = PatchParams::default();
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let live = deployments.get("web").await?;
    deployments.patch("web", &params, &kube::api::Patch::Merge(&scale(live))).await?;
    let backends: Api<Backend> = Api::default_namespaced(client);
    let live = backends.get("backend").await?;
    backends.patch("backend", &params, &kube::api::Patch::Merge(&add_worker(live))).await?;
    Ok(())
}
EOF
  fi
  cat <<'EOF'
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    reconcile(Client::try_default().await?).await
}
EOF
}

make_crate() { # name
  local dir="$work/$1" deps=""
  case "$1" in
    op-smp) deps="smp-k8s-types = { path = \"$root/smp-k8s-types\", features = [\"kube\"] }" ;;
    *smp) deps="smp-k8s-types = { path = \"$root/smp-k8s-types\" }" ;;
  esac
  case "$1" in op-*) deps="$deps
kube = { version = \"5.0\", default-features = false, features = [\"client\", \"derive\", \"rustls-tls\", \"ring\"] }
schemars = \"1\"
tokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }" ;; esac
  mkdir -p "$dir/src"
  # A custom resource's schema takes k8s-openapi's JSON schemas.
  local features='"latest"'
  case "$1" in op-*) features='"latest", "schemars"' ;; esac
  manifest "$1" "$deps" "$features" >"$dir/Cargo.toml"
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  case "$1" in
    base) kinds_program base "$five" ;;
    smp) kinds_program smp "$five" ;;
    one-base) kinds_program base ConfigMap ;;
    one-smp) kinds_program smp ConfigMap ;;
    cr-base) custom_resource base ;;
    cr-smp) custom_resource smp ;;
    op-base) operator base ;;
    op-smp) operator smp ;;
  esac >"$dir/src/main.rs"
}

# Seconds of the units named in the timings report: the crate itself,
# k8s-openapi and smp-core.
unit_times() { # timings html, crate name
  python3 - "$1" "$2" <<'EOF'
import json, re, sys
html = open(sys.argv[1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S).group(1))
def total(name):
    return sum(u["duration"] for u in units if u["name"] == name and u.get("target", "") != " (build script)")
print(f'{total(sys.argv[2].replace("-", "_")) or total(sys.argv[2]):.1f} {total("k8s-openapi"):.1f} {total("smp-core"):.1f}')
EOF
}

rounds=${ROUNDS:-1}
declare -A wall cpu own k8s core size
# The CPU time of a whole build: user and system time of cargo and every
# rustc it waited for. On a machine whose cores are all busy (two cores,
# a release build), the wall time follows it.
TIMEFORMAT='%U %S'
for profile in $profiles; do
  flag=""; [ "$profile" = release ] && flag="--release"
  for round in $(seq "$rounds"); do
    for name in $crates; do
      make_crate "$name"
      dir="$work/$name"
      rm -rf "$dir/target"
      start=$(date +%s.%N)
      if ! { time (cd "$dir" && { cargo build $flag --timings --locked -q 2>"$dir/build.log" \
        || cargo build $flag --timings -q 2>>"$dir/build.log"; }); } 2>"$dir/cpu"; then
        cat "$dir/build.log" >&2
        exit 1
      fi
      end=$(date +%s.%N)
      key="$profile/$name"
      wall[$key]+="$(python3 -c "print(f'{$end - $start:.1f}')") "
      cpu[$key]+="$(awk '{printf "%.1f", $1 + $2}' "$dir/cpu") "
      read -r o k c < <(unit_times "$(ls -t "$dir"/target/cargo-timings/cargo-timing-*.html | head -1)" "$name")
      own[$key]+="$o "; k8s[$key]+="$k "; core[$key]+="$c "
      size[$key]=$(stat -c %s "$dir/target/$profile/$name")
      echo "built $key (round $round of $rounds): $(echo "${wall[$key]}" | awk '{print $NF}') s (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      rm -rf "$dir/target/$profile/deps" "$dir/target/$profile/build"
    done
  done
done

# The median of the figures of the rounds.
median() { python3 -c "import statistics, sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.1f}')" $1; }
for key in "${!wall[@]}"; do
  [ "$rounds" -gt 1 ] && echo "$key: wall ${wall[$key]}| CPU ${cpu[$key]}| own unit ${own[$key]}" >&2
  wall[$key]=$(median "${wall[$key]}"); cpu[$key]=$(median "${cpu[$key]}"); own[$key]=$(median "${own[$key]}")
  k8s[$key]=$(median "${k8s[$key]}"); core[$key]=$(median "${core[$key]}")
done

ratio() { python3 -c "a, b = float('$1'), float('$2'); print(f'{a / b:.2f}x' if b else '-')"; }
added() { python3 -c "print(f'{float(\"$1\") - float(\"$2\"):.1f}')"; }
echo
echo "machine: $(nproc) cores, $(uname -m); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "smp: $(git -C "$root" rev-parse --short HEAD); rounds: $rounds (medians)"
echo
echo "| profile | crate | wall s | CPU s | own unit s | k8s-openapi s | smp-core s | binary MB | wall vs base | CPU vs base | own unit vs base | binary vs base |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for profile in $profiles; do
  for name in $crates; do
    key="$profile/$name"
    base="$profile/${name%smp}base"
    mb=$(python3 -c "print(f'{${size[$key]} / 1e6:.1f}')")
    if [ "$name" != "${name%smp}" ] && [ -n "${wall[$base]:-}" ]; then
      cmp="| $(ratio "${wall[$key]}" "${wall[$base]}") | $(ratio "${cpu[$key]}" "${cpu[$base]}") | $(ratio "${own[$key]}" "${own[$base]}") | $(ratio "${size[$key]}" "${size[$base]}") |"
    else
      cmp="| | | | |"
    fi
    echo "| $profile | $name | ${wall[$key]} | ${cpu[$key]} | ${own[$key]} | ${k8s[$key]} | ${core[$key]} | $mb $cmp"
  done
done

# What four more kinds add: the five-kinds crates less the one-kind ones.
for profile in $profiles; do
  b="$profile/base" s="$profile/smp" ob="$profile/one-base" os="$profile/one-smp"
  [ -n "${wall[$b]:-}" ] && [ -n "${wall[$s]:-}" ] && [ -n "${wall[$ob]:-}" ] && [ -n "${wall[$os]:-}" ] || continue
  echo
  echo "What four more kinds add ($profile; five-kinds crate less one-kind crate):"
  echo
  echo "| crate | wall s | CPU s | own unit s | binary MB |"
  echo "|---|---:|---:|---:|---:|"
  for pair in "base $b $ob" "smp $s $os"; do
    read -r name k o <<<"$pair"
    echo "| $name | $(added "${wall[$k]}" "${wall[$o]}") | $(added "${cpu[$k]}" "${cpu[$o]}") | $(added "${own[$k]}" "${own[$o]}") | $(python3 -c "print(f'{(${size[$k]} - ${size[$o]}) / 1e6:.2f}')") |"
  done
  echo "| smp vs base | $(ratio "$(added "${wall[$s]}" "${wall[$os]}")" "$(added "${wall[$b]}" "${wall[$ob]}")") | $(ratio "$(added "${cpu[$s]}" "${cpu[$os]}")" "$(added "${cpu[$b]}" "${cpu[$ob]}")") | $(ratio "$(added "${own[$s]}" "${own[$os]}")" "$(added "${own[$b]}" "${own[$ob]}")") | $(ratio "$((size[$s] - size[$os]))" "$((size[$b] - size[$ob]))") |"
done
[ -z "${KEEP:-}" ] || echo "kept: $work"
