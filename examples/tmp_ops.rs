use std::time::Instant;
use tch::{Device, Kind, Tensor};
fn t<F: FnMut()>(name: &str, mut f: F) {
    for _ in 0..20 {
        f();
    }
    let s = Instant::now();
    for _ in 0..500 {
        f();
    }
    println!("{name}: {:.1} us", s.elapsed().as_secs_f64() * 1e6 / 500.0);
}
fn main() {
    tch::set_num_threads(2);
    let _g = tch::no_grad_guard();
    let o = (Kind::Float, Device::Cpu);
    let q = Tensor::randn([1, 8, 1, 64], o);
    let k = Tensor::randn([1, 8, 1500, 64], o);
    let v = Tensor::randn([1, 8, 1500, 64], o);
    t("cross sdpa f32", || {
        let _ = Tensor::scaled_dot_product_attention(
            &q,
            &k,
            &v,
            None::<Tensor>,
            0.0,
            false,
            None,
            false,
        );
    });
    let kb = k.to_kind(Kind::BFloat16);
    let vb = v.to_kind(Kind::BFloat16);
    let qb = q.to_kind(Kind::BFloat16);
    t("cross sdpa bf16", || {
        let _ = Tensor::scaled_dot_product_attention(
            &qb,
            &kb,
            &vb,
            None::<Tensor>,
            0.0,
            false,
            None,
            false,
        );
    });
    let kt = k.transpose(-1, -2).contiguous();
    t("cross manual f32", || {
        let s = q.matmul(&kt).softmax(-1, Kind::Float);
        let _ = s.matmul(&v);
    });
    let x = Tensor::randn([1, 1, 512], o);
    let w = Tensor::randn([1536, 512], o);
    let w2 = Tensor::randn([512, 512], o);
    t("linear 512->1536 f32", || {
        let _ = x.linear(&w, None::<Tensor>);
    });
    t("linear 512->512 f32", || {
        let _ = x.linear(&w2, None::<Tensor>);
    });
    let ln_w = Tensor::ones([512], o);
    let ln_b = Tensor::zeros([512], o);
    t("layer_norm", || {
        let _ = x.layer_norm([512], Some(&ln_w), Some(&ln_b), 1e-5, true);
    });
    t("add", || {
        let _ = &x + &x;
    });
    let cache = Tensor::randn([1, 8, 30, 64], o);
    let one = Tensor::randn([1, 8, 1, 64], o);
    t("cat cache", || {
        let _ = Tensor::cat(&[&cache, &one], 2);
    });
    t("self sdpa 31", || {
        let _ = Tensor::scaled_dot_product_attention(
            &one,
            &cache,
            &cache,
            None::<Tensor>,
            0.0,
            false,
            None,
            false,
        );
    });
}
