// CsvLogger files and ProgressBar formatting (non-terminal and terminal modes).
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "support/test_paths.h"
#include "train/csv_logger.h"
#include "train/progress_bar.h"

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("CsvLogger writes a header then one line per row, and resumes") {
  strand::test::TempDir tmp;
  const auto path = tmp.path() / "metrics.csv";
  {
    strand::train::CsvLogger log(path, {"epoch", "train_loss", "valid_auroc"});
    log.log(std::vector<double>{1, 0.5, 0.75});
    // Visible immediately (no buffering), so a crash keeps finished epochs.
    CHECK(slurp(path) == "epoch,train_loss,valid_auroc\n1,0.5,0.75\n");
    log.log({{"valid_auroc", 0.1}, {"epoch", 2}, {"train_loss", 0.25}});
    CHECK_THROWS_AS(log.log(std::vector<double>{1, 2}), std::invalid_argument);
    CHECK_THROWS_AS(log.log({{"epoch", 3}, {"train_loss", 1}}), std::invalid_argument);
    CHECK_THROWS_AS(log.log({{"epoch", 3}, {"train_loss", 1}, {"valid_auroc", 1}, {"x", 1}}),
                    std::invalid_argument);
  }
  // A torn final line (power loss mid-write) is dropped when the log is reopened.
  { std::ofstream(path, std::ios::app) << "3,0.1"; }
  {
    strand::train::CsvLogger log(path, {"epoch", "train_loss", "valid_auroc"});
    log.log(std::vector<double>{3, 0.125, 0.9});
  }
  CHECK(slurp(path) == "epoch,train_loss,valid_auroc\n1,0.5,0.75\n2,0.25,0.1\n3,0.125,0.9\n");
  // Resuming with another layout is refused, naming the file.
  try {
    strand::train::CsvLogger other(path, {"epoch", "loss"});
    FAIL("header mismatch accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("metrics.csv") != std::string::npos);
    CHECK(std::string(e.what()).find("epoch,loss") != std::string::npos);
  }
  CHECK_THROWS_AS(strand::train::CsvLogger(tmp.path() / "b.csv", {"a", "a"}),
                  std::invalid_argument);
}

TEST_CASE("csv_escape quotes only when needed") {
  CHECK(strand::train::csv_escape("loss") == "loss");
  CHECK(strand::train::csv_escape("a,b") == "\"a,b\"");
  CHECK(strand::train::csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("format_duration") {
  CHECK(strand::train::format_duration(0) == "0:00:00");
  CHECK(strand::train::format_duration(3725.4) == "1:02:05");
  CHECK(strand::train::format_duration(-1) == "--:--:--");
}

TEST_CASE("ProgressBar non-terminal mode prints a line every N steps and the last step") {
  std::ostringstream out;
  double now = 100.0;
  strand::train::ProgressBar bar(out, /*interactive=*/false, /*log_every=*/2, [&] { return now; });
  bar.start_epoch(3, 5);
  for (std::size_t step = 1; step <= 5; ++step) {
    now += 0.5;  // 64 samples per 0.5 s = 128 samples/s
    bar.update(step, 64, static_cast<double>(step));
  }
  bar.finish_epoch();  // step 5 already printed: no duplicate
  CHECK(out.str() ==
        "epoch 3 | step 2/5 | 128.0 samples/s | loss 1.5000 | ETA 0:00:02\n"
        "epoch 3 | step 4/5 | 128.0 samples/s | loss 2.5000 | ETA 0:00:01\n"
        "epoch 3 | step 5/5 | 128.0 samples/s | loss 3.0000 | ETA 0:00:00\n");
  CHECK(out.str().find('\r') == std::string::npos);
  CHECK_THROWS_AS(bar.update(5, 1, 0.0), std::invalid_argument);
}

TEST_CASE("ProgressBar non-terminal finish prints the final partial state once") {
  std::ostringstream out;
  double now = 0.0;
  strand::train::ProgressBar bar(out, false, 10, [&] { return now; });
  bar.start_epoch(1, 0);  // unknown length: no total, no ETA
  now = 2.0;
  bar.update(1, 10, 0.25);
  bar.update(2, 30, 0.75);
  bar.finish_epoch();
  CHECK(out.str() == "epoch 1 | step 2 | 20.0 samples/s | loss 0.6250\n");
}

TEST_CASE("ProgressBar terminal mode redraws one line with carriage returns") {
  std::ostringstream out;
  double now = 0.0;
  strand::train::ProgressBar bar(out, /*interactive=*/true, 1, [&] { return now; });
  bar.start_epoch(1, 100);
  now = 1.0;
  bar.update(1, 10, 10.0);  // drawn
  bar.update(2, 10, 10.0);  // within 0.1 s of the last draw: skipped
  now = 2.0;
  bar.update(10, 10, 1.0);  // drawn; shorter loss text is padded over
  bar.finish_epoch();
  const std::string s = out.str();
  CHECK(std::count(s.begin(), s.end(), '\r') == 3);
  CHECK(std::count(s.begin(), s.end(), '\n') == 1);
  CHECK(s.back() == '\n');
  CHECK(s.find("step 2/100") == std::string::npos);
  CHECK(s.find("\repoch 1 | step 10/100 | 15.0 samples/s | loss 7.0000 | ETA 0:00:18") !=
        std::string::npos);
}
