use std::time::Instant;
use tch::{Device, Kind, Tensor};
fn main() {
    tch::set_num_threads(2);
    let _g = tch::no_grad_guard();
    let w = Tensor::randn([2048, 512], (Kind::Float, Device::Cpu));
    for k in [Kind::Half, Kind::BFloat16] {
        let h = w.to_kind(k);
        for _ in 0..20 {
            let _ = h.to_kind(Kind::Float);
        }
        let s = Instant::now();
        for _ in 0..200 {
            let _ = h.to_kind(Kind::Float);
        }
        let per = s.elapsed().as_secs_f64() / 200.0;
        println!(
            "{k:?} -> f32 of 1M values: {:.3} ms ({:.1} GB/s of f32 out)",
            per * 1e3,
            4.0 * 1048576.0 / per / 1e9
        );
    }
    let x = Tensor::randn([339, 512], (Kind::Float, Device::Cpu));
    for _ in 0..20 {
        let _ = x.linear(&w, None::<Tensor>);
    }
    let s = Instant::now();
    for _ in 0..100 {
        let _ = x.linear(&w, None::<Tensor>);
    }
    println!(
        "linear 339x512 . 512x2048: {:.3} ms",
        s.elapsed().as_secs_f64() * 10.0
    );
}
