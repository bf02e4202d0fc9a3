// Trains the reference TAL1 model (Conv1D -> ReLU -> GlobalMaxPool1D -> Dense -> Sigmoid) on
// a small simulated motif-detection dataset, then evaluates it on the held-out split.
// Returns non-zero when the model did not learn (test auROC below 0.75), so CTest runs it.
#include <strand/data.h>
#include <strand/layers.h>
#include <strand/optim.h>
#include <strand/train.h>
#include <cstdio>
#include <memory>

using namespace strand;

std::unique_ptr<data::DataLoader> make_loader(const data::SimulatedSplit& split, bool shuffle) {
  auto source = std::make_shared<data::ArraySource>(
      split.codes, static_cast<int64_t>(split.seq_length), split.labels, /*num_targets=*/1);
  data::LoaderOptions options;
  options.sampler.batch_size = 64;
  options.sampler.shuffle = shuffle;
  return std::make_unique<data::DataLoader>(source, options);
}

int main() {
  // DragoNN's TAL1 benchmark, smaller (1,600 training sequences of 200 bp) for a quick run.
  const data::MotifLibrary& motifs = data::MotifLibrary::builtin();
  data::MotifSimulationConfig config{.seq_length = 200,
                                     .num_pos = 1200,
                                     .num_neg = 1200,
                                     .seed = 1,
                                     .test_size = 400,
                                     .validation_size = 400};
  const auto dataset = data::simulate_single_motif_detection(motifs.get("TAL1_known4"), config);
  auto train_loader = make_loader(dataset.train, /*shuffle=*/true);
  auto validation_loader = make_loader(dataset.validation, /*shuffle=*/false);
  auto test_loader = make_loader(dataset.test, /*shuffle=*/false);

  manual_seed(0);
  Sequential model;  // input: (B, L) uint8 base codes, never one-hot
  model.add(Conv1D(4, 16, 15));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(16, 1));
  model.add(Sigmoid());
  std::printf("%s", model.summary({200}).c_str());

  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-2});
  const BinaryCrossEntropy loss;
  train::fit(model, loss, optimizer, *train_loader, validation_loader.get(), {.epochs = 8});
  const train::Evaluation test = train::evaluate(model, loss, *test_loader);
  std::printf("test: loss %.4f accuracy %.3f auROC %.3f auPRC %.3f\n", test.loss, test.accuracy,
              test.auroc, test.auprc);
  return test.auroc >= 0.75 ? 0 : 1;
}
