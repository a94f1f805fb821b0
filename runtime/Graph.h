//===- runtime/Graph.h - CUDA graphs captured from a stream -----*- C++ -*-===//
//
// A CUDA graph recorded by stream capture and instantiated: the launches a
// callback enqueues on a stream become one graph, replayed with one driver
// call. For launch loops whose kernels run about as long as the host takes
// to issue them (decode-shaped GEMMs), and for timing such kernels without
// the host's launch time. Programmatic dependent launches captured in order
// keep their overlap as programmatic edges of the graph.
//
//   auto graph = rt::Graph::capture(stream, [&] { return launcher.launch(p); });
//   graph->launch(stream);
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_RUNTIME_GRAPH_H
#define TILEC_RUNTIME_GRAPH_H

#include "runtime/Status.h"
#include "runtime/Stream.h"

#include <functional>

struct CUgraph_st;
struct CUgraphExec_st;

namespace tilec::rt {

/// An instantiated CUDA graph; destroyed with its owner.
class Graph {
public:
  /// Records what \p enqueue issues on \p stream (a non-default stream;
  /// capture mode thread-local, so other threads' work is not caught) and
  /// instantiates it. An error from \p enqueue ends the capture and is
  /// returned.
  static Result<Graph> capture(const Stream &stream,
                               const std::function<Status()> &enqueue);

  Graph(Graph &&other) noexcept;
  Graph &operator=(Graph &&other) noexcept;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph();

  /// Enqueues one replay of the graph on \p stream.
  Status launch(const Stream &stream) const;

private:
  Graph(CUgraph_st *graph, CUgraphExec_st *exec) : graph(graph), exec(exec) {}
  void release();

  CUgraph_st *graph = nullptr;
  CUgraphExec_st *exec = nullptr;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_GRAPH_H
