"""Expected values for Tollgate's experiment statistics, computed independently with SciPy.

For each case (a list of variations, each [unique viewers, purchasers]):
- the 95 % equal-tailed credible interval of each conversion rate under a Beta(1, 1) prior,
  i.e. the 2.5 % and 97.5 % quantiles of Beta(1 + purchasers, 1 + viewers - purchasers);
- the probability that each variation's rate is the highest, P(best_i) =
  integral of f_i(x) * prod_{j != i} F_j(x) dx, by adaptive quadrature (scipy.integrate.quad),
  normalized to sum to 1.

Regenerate: python3 -m venv /tmp/v && /tmp/v/bin/pip install scipy==1.17.1 &&
/tmp/v/bin/python Fixtures/experiments/compute.py > Fixtures/experiments/cases.json
"""
import json

from scipy import integrate, stats

CASES = [
    [[1000, 100], [1000, 120]],
    [[200, 10], [200, 10]],
    [[5000, 150], [5000, 200], [5000, 180]],
    [[100, 0], [100, 3]],
    [[50000, 1500], [48000, 1530]],
    [[120, 30], [1000, 240]],
    [[300, 299], [300, 280]],
    [[2000, 40], [2000, 44], [2000, 39], [2000, 61]],
]


def posterior(viewers, purchasers):
    return stats.beta(1 + purchasers, 1 + viewers - purchasers)


def probability_to_be_best(arms):
    dists = [posterior(v, p) for v, p in arms]
    raw = []
    for i, di in enumerate(dists):
        low, high = di.ppf(1e-12), di.ppf(1 - 1e-12)

        def integrand(x):
            value = di.pdf(x)
            for j, dj in enumerate(dists):
                if j != i:
                    value *= dj.cdf(x)
            return value

        value, _ = integrate.quad(integrand, low, high, limit=1000, epsabs=1e-13, epsrel=1e-11, points=[di.mean()])
        raw.append(value)
    total = sum(raw)
    return [r / total for r in raw]


out = []
for arms in CASES:
    out.append({
        "variations": arms,
        "credible_intervals": [[float(posterior(v, p).ppf(0.025)), float(posterior(v, p).ppf(0.975))] for v, p in arms],
        "probability_to_be_best": [float(x) for x in probability_to_be_best(arms)],
    })
print(json.dumps({"prior": "Beta(1,1)", "cases": out}, indent=1))
