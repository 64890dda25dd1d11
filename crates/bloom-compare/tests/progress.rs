//! The sweep's progress: every step weighted by its expected cost, so that a bar's estimate
//! of the time left does not treat a step at n = 1M like one at n = 100K.

use std::time::Duration;

use bloom_compare::candidate;
use bloom_compare::keys::KeyKind;
use bloom_compare::measure::{Entry, Setting};
use bloom_compare::sweep::{Negatives, Sweep};

fn entry(id: &str) -> Entry {
    candidate::ours()
        .into_iter()
        .find(|e| e.info.id == id)
        .unwrap()
}

fn sweep(entries: Vec<Entry>, sizes: Vec<u64>, threads: usize, negatives: usize) -> Sweep {
    Sweep {
        entries,
        kinds: vec![KeyKind::U64],
        sizes,
        fprs: vec![0.01],
        loads: vec![100],
        threads,
        rounds: 2,
        seed: 3,
        negatives: Negatives::Fixed(negatives),
        probe_budget: Duration::from_millis(1),
        file_keys: None,
    }
}

fn setting(kind: KeyKind, capacity: u64) -> Setting {
    Setting {
        kind,
        capacity,
        load_percent: 100,
        fpr: 0.01,
    }
}

#[test]
fn a_step_costs_in_proportion_to_its_keys_and_negatives() {
    let classic = entry("classic");
    let s = sweep(vec![classic], vec![1_000], 1, 1_000);
    let small = s.step_cost(&classic, &setting(KeyKind::U64, 1_000));
    let large = s.step_cost(&classic, &setting(KeyKind::U64, 100_000));
    // 100 times the keys, the same negatives: between 50 and 100 times the cost.
    assert!(large > 50 * small && large < 100 * small, "{small} {large}");

    let more_negatives = sweep(vec![classic], vec![1_000], 1, 100_000);
    assert!(more_negatives.step_cost(&classic, &setting(KeyKind::U64, 1_000)) > 20 * small);

    let url = s.step_cost(&classic, &setting(KeyKind::Url, 1_000));
    assert!(
        url > small,
        "URL keys cost more to hash: {url} against {small}"
    );
}

#[test]
fn a_parallel_build_adds_to_the_cost_only_when_it_is_measured() {
    // The classic filter has a batch query and a parallel build, the scalable one only the
    // batch query: alike on one thread, the classic one dearer when its parallel build runs.
    let classic = entry("classic");
    let scalable = entry("scalable");
    assert!(classic.parallel && classic.batch && scalable.batch && !scalable.parallel);
    let at = setting(KeyKind::U64, 10_000);
    let one = sweep(vec![classic, scalable], vec![10_000], 1, 10_000);
    assert_eq!(one.step_cost(&classic, &at), one.step_cost(&scalable, &at));
    let two = sweep(vec![classic, scalable], vec![10_000], 2, 10_000);
    assert!(two.step_cost(&classic, &at) > one.step_cost(&classic, &at));
    assert_eq!(two.step_cost(&scalable, &at), one.step_cost(&scalable, &at));
}

#[test]
fn the_reported_work_is_weighted_and_adds_up() {
    let s = sweep(
        vec![entry("classic"), entry("blocked")],
        vec![1_000, 20_000],
        1,
        5_000,
    );
    let mut seen = Vec::new();
    let outcome = s
        .run(&mut |p| {
            seen.push((
                p.done,
                p.total,
                p.work_done,
                p.work_total,
                p.what.to_string(),
            ));
        })
        .unwrap();
    assert_eq!(outcome.rows.len(), 4);
    let total_work = s.total_cost();
    assert!(seen.iter().all(|p| p.3 == total_work && p.1 == 8));
    assert_eq!(seen.first().unwrap().2, 0);
    let last = seen.last().unwrap();
    assert_eq!(
        (last.0, last.2),
        (8, total_work),
        "the last report is complete"
    );
    assert!(
        seen.windows(2)
            .all(|w| w[0].2 <= w[1].2 && w[0].0 <= w[1].0)
    );

    // The work a step adds is its expected cost: the steps at n = 20,000 weigh several
    // times those at n = 1,000 (4 of the 8 steps each, far more than half the work).
    let mut small = 0;
    let mut large = 0;
    for w in seen.windows(2) {
        let added = w[1].2 - w[0].2;
        if w[0].4.contains("n=1000 ") {
            small += added;
        } else if w[0].4.contains("n=20000 ") {
            large += added;
        }
    }
    assert!(small > 0 && large > 3 * small, "{small} {large}");
    let classic = entry("classic");
    let step = s.step_cost(&classic, &setting(KeyKind::U64, 20_000));
    assert!(
        seen.windows(2).any(|w| w[0].4.contains("n=20000 ")
            && w[0].4.contains("classic")
            && w[1].2 - w[0].2 == step),
        "a classic step at n = 20,000 adds exactly its step cost"
    );
}
