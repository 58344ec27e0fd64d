//! `whisper-dictation devices [--json]`: the detected backends, each one's probe result and
//! time, the failure history with backoffs, and the device every operation will use now.
//! `--probe-child SPEC` is the hidden entry point of the child process that runs a first GPU
//! probe, so that a driver abort cannot take the app down.

use super::device_args::{print_notices, DeviceArgs};
use clap::Args;
use serde::Serialize;
use whisper_dictation::device::cpu_class::CpuClass;
use whisper_dictation::device::history::{now_unix, Outcome};
use whisper_dictation::device::policy::{Reason, MODEL_OPERATIONS};
use whisper_dictation::device::probe::{probe_child_main, ProbeReport};
use whisper_dictation::device::{DeviceKind, Operation};

#[derive(Debug, Args)]
pub struct DevicesArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Run one probe and print its report (used by the app itself).
    #[arg(long, hide = true)]
    probe_child: Option<String>,
}

#[derive(Serialize)]
struct DeviceReport {
    kind: DeviceKind,
    name: String,
    simulated: bool,
    probe: Option<ProbeReport>,
    history: Vec<OperationReport>,
    backoff_failures: u32,
    retry_in_seconds: Option<u64>,
}

#[derive(Serialize)]
struct OperationReport {
    operation: Operation,
    success_rate: Option<f32>,
    healthy: bool,
    recent: Vec<Outcome>,
}

#[derive(Serialize)]
struct Report {
    /// The libtorch this process loaded (e.g. "2.13.0", "2.13.0+cu130").
    libtorch: String,
    /// The CPU's class (native bf16 or not, and what capped it) and the app's layout for it.
    cpu_class: String,
    cpu_layout: &'static str,
    devices: Vec<DeviceReport>,
    placement: DeviceKind,
    reason: String,
    operations: Vec<(Operation, DeviceKind)>,
    notices: Vec<String>,
}

pub fn run(args: DevicesArgs) -> anyhow::Result<()> {
    if let Some(spec) = &args.probe_child {
        std::process::exit(probe_child_main(spec));
    }
    let mut manager = args.device.manager()?;
    let placement = manager.placement();
    let now = now_unix();
    let mut devices = Vec::new();
    for backend in manager.backends().to_vec() {
        let probe = backend
            .kind
            .is_gpu()
            .then(|| manager.probe(backend.kind, tch::Kind::Float));
        let history = manager.history();
        let backoff = history.backoff(backend.kind).copied();
        devices.push(DeviceReport {
            kind: backend.kind,
            name: backend.name.clone(),
            simulated: backend.simulated.is_some(),
            probe,
            history: Operation::ALL
                .into_iter()
                .map(|op| OperationReport {
                    operation: op,
                    success_rate: history.success_rate(backend.kind, op),
                    healthy: history.is_healthy(backend.kind, op),
                    recent: history
                        .recent(backend.kind, op)
                        .into_iter()
                        .cloned()
                        .collect(),
                })
                .collect(),
            backoff_failures: backoff.map_or(0, |b| b.failures),
            retry_in_seconds: backoff
                .map(|b| b.last_failure + history.policy().delay(b.failures))
                .filter(|&at| at > now)
                .map(|at| at - now),
        });
    }
    let cpu = CpuClass::detect();
    let report = Report {
        libtorch: whisper_dictation::device::backend::libtorch_version(),
        cpu_class: cpu.to_string(),
        cpu_layout: cpu.app_layout(),
        devices,
        placement: placement.kind,
        reason: describe(&placement.reason),
        operations: MODEL_OPERATIONS
            .into_iter()
            .map(|op| (op, placement.kind))
            .collect(),
        notices: manager.take_notices(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
        print_notices(&report.notices);
    }
    Ok(())
}

fn describe(reason: &Reason) -> String {
    match reason {
        Reason::Preferred => "the preferred device, healthy".into(),
        Reason::Requested => "asked for".into(),
        Reason::RequestedMissing { requested } => {
            format!("{requested} was asked for but is not available")
        }
        Reason::NoGpu => "no usable GPU".into(),
        Reason::ProbeFailed { gpu } => format!("the {gpu} probe failed"),
        Reason::Unhealthy {
            gpu,
            op,
            success_rate,
        } => format!(
            "{op} succeeded in only {:.0}% of recent runs on {gpu}; waiting for the retry backoff",
            success_rate * 100.0
        ),
        Reason::RetryAfterBackoff { gpu } => format!("{gpu} had failures; trying it again"),
    }
}

fn print_table(report: &Report) {
    println!("libtorch {}", report.libtorch);
    println!(
        "CPU: {}; the app computes there in {}",
        report.cpu_class, report.cpu_layout
    );
    for d in &report.devices {
        let sim = if d.simulated { " (simulated)" } else { "" };
        println!("{} — {}{}", d.kind, d.name, sim);
        if let Some(p) = &d.probe {
            let verdict = match p.first_failure() {
                None => "passed".to_string(),
                Some(c) => format!(
                    "FAILED at {}: {}",
                    c.name,
                    c.error.clone().unwrap_or_default()
                ),
            };
            println!(
                "  probe ({}): {} in {:.0} ms",
                p.precision, verdict, p.duration_ms
            );
        }
        for op in &d.history {
            if op.recent.is_empty() {
                continue;
            }
            let marks: String = op
                .recent
                .iter()
                .map(|o| if o.ok { '✓' } else { '✗' })
                .collect();
            let rate = op
                .success_rate
                .map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
            println!(
                "  {:<7} {marks:<6} {rate:>5}{}",
                op.operation.name(),
                if op.healthy { "" } else { "  unhealthy" }
            );
        }
        if let Some(secs) = d.retry_in_seconds {
            println!(
                "  backoff: {} failure(s), next GPU try in {secs} s",
                d.backoff_failures
            );
        }
    }
    println!("model placement: {} ({})", report.placement, report.reason);
    for (op, kind) in &report.operations {
        println!("  {op:<7} → {kind}");
    }
}
