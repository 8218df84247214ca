"""Expected values for Tollgate's revenue-per-viewer comparison, computed independently with
PyPI's bayesian-testing (its delta-lognormal evaluation, eval_delta_lognormal_agg).

Model (the same as docs/analytics.md states): a viewer pays with p ~ Beta(1 + payers,
1 + viewers - payers); a payer's revenue is log-normal with a Normal-Inverse-Gamma posterior on
(mu, sigma^2) from n, sum(log x), sum(log x)^2 under the prior m0 = 0, w0 = 0.01, a0 = 0, b0 = 0;
revenue per viewer = p * exp(mu + sigma^2 / 2).

Each case gives the variations' sufficient statistics (drawn once from a seeded generator) and:
- reference values from 2 000 000 draws: probability to be best, expected loss, 95 % interval,
  and the mean of the revenue-per-viewer draws;
- tolerances for an implementation that uses 65 536 draws (Tollgate's count): five times the
  standard deviation of each figure over 24 runs of 65 536 draws with different seeds, plus the
  reference's own error; so a correct implementation fails a check about once in a million.

Regenerate: python3 -m venv /tmp/v && /tmp/v/bin/pip install bayesian-testing==0.10.0 &&
/tmp/v/bin/python Fixtures/experiments/revenue/compute.py > Fixtures/experiments/revenue/cases.json
"""
import json

import numpy as np
from bayesian_testing.metrics.evaluation import eval_delta_lognormal_agg
from bayesian_testing.metrics.posteriors import beta_posteriors_all, lognormal_posteriors

DRAWS = 65_536
REFERENCE_DRAWS = 2_000_000
RUNS = 24

# name, then per variation: viewers, payers, median revenue per payer, log-sd of revenue
CASES = [
    ("a trial paywall converts more but earns less", [(1000, 60, 30.0, 0.3), (1000, 90, 10.0, 0.3)]),
    ("two close variations", [(2000, 80, 12.0, 0.5), (2000, 84, 12.5, 0.5)]),
    ("three variations, wide spread of spend", [(800, 20, 15.0, 1.2), (800, 25, 9.0, 1.2), (800, 18, 20.0, 1.2)]),
    ("four variations, one clearly best",
     [(5000, 150, 10.0, 0.4), (5000, 160, 10.0, 0.4), (5000, 150, 11.0, 0.4), (5000, 220, 14.0, 0.4)]),
    ("one variation with no payer", [(300, 0, 10.0, 0.5), (300, 12, 10.0, 0.5)]),
    ("identical variations", [(1500, 45, 20.0, 0.6), (1500, 45, 20.0, 0.6)]),
]

PRIOR = dict(m=0.0, a=0.0, b=0.0, w=0.01)


def sufficient(rng, viewers, payers, median, sd):
    revenues = np.round(np.exp(rng.normal(np.log(median), sd, payers)), 2)
    revenues = np.maximum(revenues, 0.01)
    logs = np.log(revenues)
    return {"viewers": viewers, "payers": payers, "sum_log": float(logs.sum()),
            "sum_log_squares": float((logs * logs).sum())}


def evaluate(variations, draws, seed):
    k = len(variations)
    pbbs, losses, intervals = eval_delta_lognormal_agg(
        totals=[v["viewers"] for v in variations], non_zeros=[v["payers"] for v in variations],
        sum_logs=[v["sum_log"] for v in variations], sum_logs_2=[v["sum_log_squares"] for v in variations],
        sim_count=draws, a_priors_beta=[1] * k, b_priors_beta=[1] * k, m_priors=[PRIOR["m"]] * k,
        a_priors_ig=[PRIOR["a"]] * k, b_priors_ig=[PRIOR["b"]] * k, w_priors=[PRIOR["w"]] * k,
        seed=seed, interval_alpha=0.95)
    # The library returns no mean: draw the same posteriors again for it.
    ss = np.random.SeedSequence(seed)
    children = ss.spawn(k + 1)
    p = beta_posteriors_all([v["viewers"] for v in variations], [v["payers"] for v in variations], draws,
                            [1] * k, [1] * k, children[0])
    means = []
    for i, v in enumerate(variations):
        x = np.asarray(lognormal_posteriors(v["payers"], v["sum_log"], v["sum_log_squares"], draws,
                                            PRIOR["m"], PRIOR["a"], PRIOR["b"], PRIOR["w"], children[1 + i]))
        means.append(float(np.mean(p[i] * x)))
    return ([float(x) for x in pbbs], [float(x) for x in losses],
            [[float(a), float(b)] for a, b in intervals], means)


def main():
    rng = np.random.default_rng(20261130)
    cases = []
    for name, spec in CASES:
        variations = [sufficient(rng, *v) for v in spec]
        pbb, loss, interval, mean = evaluate(variations, REFERENCE_DRAWS, 1)
        runs = [evaluate(variations, DRAWS, 100 + r) for r in range(RUNS)]

        def tolerance(index, pick):
            values = np.array([pick(run[index]) for run in runs])
            return float(5 * values.std(axis=0, ddof=1).max() * (1 + np.sqrt(DRAWS / REFERENCE_DRAWS)) + 1e-9)

        figures = []
        for i in range(len(variations)):
            figures.append({
                "probability_to_be_best": pbb[i],
                "probability_tolerance": tolerance(0, lambda r: r[i]),
                "expected_loss": loss[i],
                "expected_loss_tolerance": tolerance(1, lambda r: r[i]),
                "interval": interval[i],
                "interval_tolerance": [tolerance(2, lambda r: r[i][0]), tolerance(2, lambda r: r[i][1])],
                "mean": mean[i],
                "mean_tolerance": tolerance(3, lambda r: r[i]),
            })
        cases.append({"name": name, "variations": variations, "expected": figures})
    print(json.dumps({"draws": DRAWS, "reference_draws": REFERENCE_DRAWS, "prior": PRIOR, "cases": cases},
                     indent=1))


if __name__ == "__main__":
    main()
