#include "cfx/reference/sample_data.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/reference/methodology.h"
#include "cfx/storage/private_files.h"

namespace cfx::reference {
namespace {

// splitmix64: tiny, fast, and fully specified (std:: distributions are not portable).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return (Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int64_t Below(int64_t n) { return static_cast<int64_t>(Uniform() * n); }
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  uint64_t state_;
};

constexpr const char* kNameStems[] = {
    "Apex",   "Boreal",  "Cinder",  "Delta",  "Ember",    "Fjord",  "Granite", "Helix",
    "Ion",    "Juniper", "Kestrel", "Lumen",  "Meridian", "Nimbus", "Orbit",   "Pylon",
    "Quartz", "Ridge",   "Summit",  "Tundra", "Umbra",    "Vertex", "Willow",  "Xenon",
    "Yarrow", "Zephyr",  "Aurora",  "Basalt", "Cobalt",   "Drift",  "Echo",    "Flux"};
constexpr double kTierPrice[common::kNumTiers] = {6.10, 5.35, 4.65, 4.05};  // B200 US on-demand
constexpr double kTierTput[common::kNumTiers] = {290, 255, 222, 195};  // output tok/s/GPU, B200

double RegionPriceFactor(const std::string& r) {
  return r == "US" ? 1.0 : r == "EU" ? 1.06 : r == "APAC" ? 1.12 : 1.0;
}
double GpuPriceFactor(const std::string& g) {
  return g == "H100" ? 0.42 : g == "H200" ? 0.58 : g == "B300" ? 1.28 : 1.0;
}
double GpuTputFactor(const std::string& g) {
  return g == "H100" ? 0.38 : g == "H200" ? 0.52 : g == "B300" ? 1.35 : 1.0;
}
double LeasePriceFactor(Lease l) {
  switch (l) {
    case Lease::kOnDemand:
      return 1.0;
    case Lease::kReserved1m:
      return 0.96;
    case Lease::kReserved3m:
      return 0.90;
    case Lease::kReserved1y:
      return 0.82;
    case Lease::kSpot:
      return 0.65;
  }
  return 1.0;
}
Lease DrawLease(Rng& rng) {
  double u = rng.Uniform();
  return u < 0.60   ? Lease::kOnDemand
         : u < 0.80 ? Lease::kReserved1m
         : u < 0.90 ? Lease::kReserved3m
         : u < 0.95 ? Lease::kReserved1y
                    : Lease::kSpot;
}

struct Provider {
  std::string name;
  common::Tier tier;
  double size;        // relative market share
  double price_bias;  // multiplicative, ~±3%
  double tput_skill;  // multiplicative on the tier's throughput
  std::vector<std::string> regions;
};

}  // namespace

SampleData GenerateSample(const SampleOptions& opt) {
  Rng rng(opt.seed);
  SampleData out;
  // Providers: Zipf-like sizes; tiers dealt round-robin so each tier has big and small ones.
  std::vector<Provider> providers;
  const int n = std::max(opt.providers, 4 * 3);
  for (int i = 0; i < n; ++i) {
    Provider p;
    p.name = i < 32 ? std::string(kNameStems[i]) + "Cloud" : absl::StrCat("Provider", i + 1);
    p.tier = static_cast<common::Tier>(i % common::kNumTiers);
    p.size = 1.0 / std::pow(i / common::kNumTiers + 1.0, 1.2) * (0.7 + 0.6 * rng.Uniform());
    p.price_bias = 1.0 + 0.02 * rng.Normal();
    p.tput_skill = 0.88 + 0.24 * rng.Uniform();
    for (size_t r = 0; r < opt.regions.size(); ++r) {
      // Big providers are everywhere; small ones in one or two regions (first always).
      if (r == 0 || i / common::kNumTiers < 3 || rng.Uniform() < 0.5)
        p.regions.push_back(opt.regions[r]);
    }
    providers.push_back(std::move(p));
  }
  // Throughput: every operator measured for every gpu two weeks before `from`, then every
  // ten business days, with a slow drift of its own.
  const common::Date first_measure{opt.from.days - 14};
  for (const Provider& p : providers) {
    for (const std::string& gpu : opt.gpus) {
      double tps = kTierTput[static_cast<int>(p.tier)] * GpuTputFactor(gpu) * p.tput_skill;
      for (common::Date d = first_measure; d <= opt.to; d.days += 14) {
        ThroughputRow row{d,
                          p.name,
                          p.tier,
                          gpu,
                          "llama-3.3-70b-fp8",
                          8000,
                          1000,
                          std::llround(tps * 10) * 100000};  // one decimal
        out.throughput.push_back(row);
        tps *= 1.0 + 0.01 + 0.015 * rng.Normal();  // serving stacks improve over time
      }
    }
  }
  std::stable_sort(out.throughput.begin(), out.throughput.end(),
                   [](const ThroughputRow& a, const ThroughputRow& b) { return a.date < b.date; });

  // Observations: per business day and grade, a random-walk mid plus provider, lease and
  // kind effects, drawn inside that day's window.
  std::map<std::string, double> walk;
  for (common::Date day : opt.calendar.BusinessDays(opt.from, opt.to)) {
    const Window w = FixWindow(day, opt.calendar);
    for (const std::string& gpu : opt.gpus) {
      for (int t = 0; t < common::kNumTiers; ++t) {
        for (const std::string& region : opt.regions) {
          const std::string key = absl::StrCat(gpu, t, region);
          double& level = walk.try_emplace(key, 1.0).first->second;
          level *= std::exp(0.008 * rng.Normal());
          const double mid =
              kTierPrice[t] * GpuPriceFactor(gpu) * RegionPriceFactor(region) * level;
          std::vector<const Provider*> pool;
          double pool_size = 0;
          for (const Provider& p : providers) {
            if (static_cast<int>(p.tier) != t ||
                std::find(p.regions.begin(), p.regions.end(), region) == p.regions.end()) {
              continue;
            }
            pool.push_back(&p);
            pool_size += p.size;
          }
          int count = opt.observations_per_grade_day;
          count = static_cast<int>(
              std::lround(count * (1 - opt.count_jitter + 2 * opt.count_jitter * rng.Uniform())));
          const double u = rng.Uniform();
          const bool dead = u < opt.dead_day_probability;
          const bool quiet = !dead && u < opt.dead_day_probability + opt.quiet_day_probability;
          if (dead) count = static_cast<int>(rng.Below(3));
          if (quiet) count = 4 + static_cast<int>(rng.Below(5));
          for (int k = 0; k < count; ++k) {
            double pick = rng.Uniform() * pool_size;
            const Provider* p = pool.back();
            for (const Provider* c : pool) {
              if ((pick -= c->size) < 0) {
                p = c;
                break;
              }
            }
            Observation o;
            o.ts = w.after + 1'000'000 * (1 + rng.Below((w.until - w.after) / 1'000'000));
            o.provider = p->name;
            o.gpu = gpu;
            o.tier = static_cast<common::Tier>(t);
            o.region = region;
            o.lease = DrawLease(rng);
            // Quiet days are mostly quotes: trades alone do not reach level 1.
            o.kind = rng.Uniform() < (quiet ? 0.3 : 0.65) ? Kind::kTrade : Kind::kQuote;
            double price = mid * p->price_bias * LeasePriceFactor(o.lease) *
                           (o.kind == Kind::kQuote ? 1.015 : 1.0) * (1.0 + 0.012 * rng.Normal());
            if (rng.Uniform() < opt.outlier_probability) price *= rng.Uniform() < 0.5 ? 0.5 : 1.8;
            o.price_e6 = std::max<int64_t>(1, std::llround(price * 100)) * 10'000;  // cents
            const double nodes = std::exp(1.0 + 1.2 * rng.Normal()) * (0.5 + 4 * p->size);
            o.gpu_hours_e6 = std::max<int64_t>(8, 8 * std::llround(nodes) * 24) * 1'000'000;
            out.observations.push_back(std::move(o));
          }
        }
      }
    }
  }
  std::stable_sort(out.observations.begin(), out.observations.end(),
                   [](const Observation& a, const Observation& b) { return a.ts < b.ts; });
  return out;
}

absl::Status WriteSampleFiles(const SampleData& data, const std::string& dir) {
  const std::pair<std::string, std::string> files[] = {
      {absl::StrCat(dir, "/observations.csv"), ObservationsToCsv(data.observations)},
      {absl::StrCat(dir, "/throughput.csv"), ThroughputToCsv(data.throughput)}};
  // Both are looked at before either is written: a file already there may be the user's
  // own data (a generator's folder named again), which a run must not replace.
  for (const auto& [path, text] : files) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
    if (st.type() == std::filesystem::file_type::none) {
      return absl::UnavailableError(absl::StrCat(path, ": ", ec.message()));
    }
    if (st.type() != std::filesystem::file_type::not_found) {
      return absl::AlreadyExistsError(absl::StrCat(
          path, " is already there: not replaced; move it away or name another folder"));
    }
  }
  if (absl::Status s = storage::MakePrivateDirs(dir); !s.ok()) return s;
  for (size_t i = 0; i < std::size(files); ++i) {
    // Each through a temporary file and a rename that replaces nothing (a file made since the
    // look above included): a failed run leaves no half-written file.
    if (absl::Status s =
            storage::WritePrivateFile(files[i].first, files[i].second, storage::FileWrite::kNew);
        !s.ok()) {
      std::error_code ec;
      for (size_t j = 0; j < i; ++j) std::filesystem::remove(files[j].first, ec);
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace cfx::reference
