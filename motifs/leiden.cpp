// igraph_community_leiden with modularity's node weights and resolution.
#include "motifs/leiden.h"

#include <fmt/format.h>
#include <igraph/igraph.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace strand::motifs {
namespace {

std::mutex igraph_mutex;

void check(igraph_error_t status, const char* what) {
  if (status != IGRAPH_SUCCESS) {
    throw std::runtime_error(fmt::format("igraph: {} failed: {}", what, igraph_strerror(status)));
  }
}

// Owns the igraph objects of one clustering.
struct IgraphState {
  igraph_t graph{};
  igraph_vector_t weights{}, strengths{};
  igraph_vector_int_t membership{};
  bool has_graph = false;
  IgraphState() {
    igraph_vector_init(&weights, 0);
    igraph_vector_init(&strengths, 0);
    igraph_vector_int_init(&membership, 0);
  }
  ~IgraphState() {
    if (has_graph) igraph_destroy(&graph);
    igraph_vector_destroy(&weights);
    igraph_vector_destroy(&strengths);
    igraph_vector_int_destroy(&membership);
  }
};

// Cluster ids renumbered so that the largest cluster is 0 (ties: the first seen).
std::vector<int64_t> by_size(const std::vector<int64_t>& membership) {
  std::map<int64_t, int64_t> sizes;
  for (int64_t m : membership) sizes[m]++;
  std::vector<std::pair<int64_t, int64_t>> order(sizes.begin(), sizes.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<int64_t, int64_t> rename;
  for (size_t k = 0; k < order.size(); ++k) rename[order[k].first] = static_cast<int64_t>(k);
  std::vector<int64_t> out;
  for (int64_t m : membership) out.push_back(rename[m]);
  return out;
}

// The best of the runs seeded `first`, first + step, ... up to `runs`: (quality, seed,
// membership). Ties keep the lower seed.
struct RunResult {
  double quality = -1e300;
  int64_t seed = 0;
  std::vector<int64_t> membership;
};

RunResult best_of_runs(IgraphState& s, double total, int64_t vertices, int first, int step,
                       int runs) {
  RunResult best;
  for (int run = first; run <= runs; run += step) {
    igraph_rng_seed(igraph_rng_default(), static_cast<igraph_uint_t>(run * 100));
    igraph_integer_t clusters = 0;
    igraph_real_t quality = 0;
    check(igraph_community_leiden(&s.graph, &s.weights, &s.strengths, 1.0 / (2.0 * total), 0.01,
                                  false, -1, &s.membership, &clusters, &quality),
          "Leiden");
    if (quality > best.quality) {
      best = {quality, run, {VECTOR(s.membership), VECTOR(s.membership) + vertices}};
    }
  }
  return best;
}

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, size -= static_cast<size_t>(n);
  }
  return true;
}

// A forked child running every `step`-th seed from `first`, reporting its best through a pipe.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  int first = 0;
};

Child fork_runs(IgraphState& s, double total, int64_t vertices, int first, int step, int runs) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {  // the child: igraph and write(2) only, then _exit
    ::close(fds[0]);
    int code = 1;
    try {
      const RunResult r = best_of_runs(s, total, vertices, first, step, runs);
      if (write_all(fds[1], &r.quality, sizeof(double)) &&
          write_all(fds[1], &r.seed, sizeof(int64_t)) &&
          write_all(fds[1], r.membership.data(), r.membership.size() * sizeof(int64_t))) {
        code = 0;
      }
    } catch (...) {
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return {};
  }
  return {pid, fds[0], first};
}

// A child's best, or its seeds run here when it failed.
RunResult collect(Child& c, IgraphState& s, double total, int64_t vertices, int step, int runs) {
  RunResult r;
  r.membership.resize(static_cast<size_t>(vertices));
  const bool ok = c.pid > 0 && read_all(c.fd, &r.quality, sizeof(double)) &&
                  read_all(c.fd, &r.seed, sizeof(int64_t)) &&
                  read_all(c.fd, r.membership.data(), r.membership.size() * sizeof(int64_t));
  if (c.fd >= 0) ::close(c.fd);
  int status = 0;
  if (c.pid > 0) ::waitpid(c.pid, &status, 0);
  if (ok && WIFEXITED(status) && WEXITSTATUS(status) == 0) return r;
  return best_of_runs(s, total, vertices, c.first, step, runs);
}

}  // namespace

std::vector<int64_t> leiden_clusters(const WeightedGraph& g, int runs, int processes) {
  if (g.vertices == 0) return {};
  runs = std::max(1, runs);
  processes = std::clamp(processes, 1, runs);
  std::lock_guard<std::mutex> lock(igraph_mutex);
  IgraphState s;
  igraph_vector_int_t edges;
  igraph_vector_int_init(&edges, static_cast<igraph_integer_t>(2 * g.from.size()));
  for (size_t e = 0; e < g.from.size(); ++e) {
    VECTOR(edges)[2 * e] = g.from[e];
    VECTOR(edges)[2 * e + 1] = g.to[e];
  }
  const igraph_error_t made = igraph_create(&s.graph, &edges, g.vertices, IGRAPH_UNDIRECTED);
  igraph_vector_int_destroy(&edges);
  check(made, "creating the graph");
  s.has_graph = true;
  check(igraph_vector_resize(&s.weights, static_cast<igraph_integer_t>(g.weight.size())), "resize");
  double total = 0;
  for (size_t e = 0; e < g.weight.size(); ++e) {
    VECTOR(s.weights)[e] = g.weight[e];
    total += g.weight[e];
  }
  check(igraph_strength(&s.graph, &s.strengths, igraph_vss_all(), IGRAPH_ALL, IGRAPH_LOOPS,
                        &s.weights),
        "strength");
  // Seeds 1..runs dealt round-robin: this process takes 1, 1 + processes, ...; child k takes
  // 1 + k, ... The best is the highest quality, ties to the lower seed, whatever the split.
  std::vector<Child> children;
  for (int k = 1; k < processes; ++k) {
    children.push_back(fork_runs(s, total, g.vertices, 1 + k, processes, runs));
  }
  RunResult best = best_of_runs(s, total, g.vertices, 1, processes, runs);
  for (Child& c : children) {
    RunResult r = collect(c, s, total, g.vertices, processes, runs);
    if (r.quality > best.quality || (r.quality == best.quality && r.seed < best.seed)) {
      best = std::move(r);
    }
  }
  return by_size(best.membership);
}

}  // namespace strand::motifs
