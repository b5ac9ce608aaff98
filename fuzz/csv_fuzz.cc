// Every CSV reader (SPEC §8, §10, §11): observations, throughput, positions, prices and
// scenario files, and the strict reader under them. Any text is rows or an error naming the
// file, line and column; never a crash. Rows that parse write back (where a writer exists)
// to text that parses to the same rows.
#include <cstdlib>
#include <string>

#include "cfx/common/csv.h"
#include "cfx/gpu_valuation/csv_inputs.h"
#include "cfx/gpu_valuation/scenarios.h"
#include "cfx/reference/inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 6) {
    case 0: {
      auto rows = cfx::reference::ParseObservationsCsv(text, "o.csv");
      if (rows.ok()) {
        auto again = cfx::reference::ParseObservationsCsv(cfx::reference::ObservationsToCsv(*rows),
                                                          "o2.csv");
        if (!again.ok() || again->size() != rows->size()) abort();
      }
      break;
    }
    case 1: {
      auto rows = cfx::reference::ParseThroughputCsv(text, "t.csv");
      if (rows.ok()) {
        auto again =
            cfx::reference::ParseThroughputCsv(cfx::reference::ThroughputToCsv(*rows), "t2.csv");
        if (!again.ok() || again->size() != rows->size()) abort();
      }
      break;
    }
    case 2:
      cfx::gpu_valuation::ParsePositionsCsv(text, "p.csv").IgnoreError();
      break;
    case 3:
      cfx::gpu_valuation::ParsePricesCsv(text, "s.csv").IgnoreError();
      break;
    case 4:
      cfx::gpu_valuation::ParseScenarioCsv(text, "sc.csv").IgnoreError();
      break;
    default: {
      cfx::common::CsvReader csv(text, "x.csv", "a,b,c");
      while (csv.Next()) {
        if (csv.fields().size() != 3) abort();
      }
      break;
    }
  }
  return 0;
}
