//! Reading and checking real rulesheets: the largest corpus file (CHIMPANZEE,
//! 417 KB) and a few common games.

use criterion::{criterion_group, criterion_main, Criterion};
use gdl_codegen::front::{self, Options};

fn corpus(rel: &str) -> (String, Vec<u8>) {
    let path = format!("{}/{rel}", gdl_benches::CORPUS);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (rel.to_owned(), bytes)
}

fn largest_file() -> String {
    let dir = format!(
        "{}/dresden-ggpserver/aaai2006-competition",
        gdl_benches::CORPUS
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("CHIMPANZEE"))
        .collect();
    names.sort();
    format!("dresden-ggpserver/aaai2006-competition/{}", names[0])
}

fn read_and_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("read_and_check");
    for rel in [
        largest_file(),
        "ggp-repository-base/ticTacToe.kif".to_owned(),
        "ggp-repository-base/chess.kif".to_owned(),
    ] {
        let (name, bytes) = corpus(&rel);
        let short = name.rsplit('/').next().unwrap_or(&name).to_owned();
        group.bench_function(short, |b| {
            b.iter(|| {
                let fe = front::run_bytes(&name, &bytes, &Options::default());
                assert!(fe.is_valid());
                fe
            })
        });
    }
    group.finish();
}

criterion_group!(benches, read_and_check);
criterion_main!(benches);
