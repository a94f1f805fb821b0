//===- runtime/Graph.cpp - CUDA graphs captured from a stream -------------===//
//
// cuStreamBeginCapture / cuStreamEndCapture / cuGraphInstantiateWithFlags /
// cuGraphLaunch, and the two destroys.
//
//===----------------------------------------------------------------------===//
#include "runtime/Graph.h"

#include "runtime/DriverApi.h"

namespace tilec::rt {

Result<Graph> Graph::capture(const Stream &stream,
                             const std::function<Status()> &enqueue) {
  Result<const DriverApi *> apiOrError = driverApi();
  if (!apiOrError)
    return apiOrError.error();
  const DriverApi &api = **apiOrError;
  if (!api.streamBeginCapture || !api.streamEndCapture ||
      !api.graphInstantiateWithFlags || !api.graphLaunch ||
      !api.graphExecDestroy || !api.graphDestroy)
    return Error("CUDA graphs need a CUDA 11.4+ driver; " + api.libraryPath +
                 " lacks cuStreamBeginCapture, cuGraphInstantiateWithFlags or "
                 "cuGraphLaunch");
  if (!stream.handle())
    return Error("graph capture needs a stream of its own, not the default "
                 "stream");
  if (Status s = checkCuda(api,
                           api.streamBeginCapture(
                               stream.handle(),
                               CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                           "cuStreamBeginCapture");
      !s)
    return s.error();
  Status enqueued = enqueue();
  CUgraph graph = nullptr;
  Status ended = checkCuda(api, api.streamEndCapture(stream.handle(), &graph),
                           "cuStreamEndCapture");
  if (!enqueued) {
    if (graph)
      api.graphDestroy(graph);
    return enqueued.error().withContext("while capturing a graph");
  }
  if (!ended)
    return ended.error();
  CUgraphExec exec = nullptr;
  if (Status s = checkCuda(api, api.graphInstantiateWithFlags(&exec, graph, 0),
                           "cuGraphInstantiateWithFlags");
      !s) {
    api.graphDestroy(graph);
    return s.error();
  }
  return Graph(graph, exec);
}

Graph::Graph(Graph &&other) noexcept : graph(other.graph), exec(other.exec) {
  other.graph = nullptr;
  other.exec = nullptr;
}

Graph &Graph::operator=(Graph &&other) noexcept {
  if (this != &other) {
    release();
    graph = other.graph;
    exec = other.exec;
    other.graph = nullptr;
    other.exec = nullptr;
  }
  return *this;
}

Graph::~Graph() { release(); }

void Graph::release() {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return;
  if (exec)
    (*api)->graphExecDestroy(exec);
  if (graph)
    (*api)->graphDestroy(graph);
  exec = nullptr;
  graph = nullptr;
}

Status Graph::launch(const Stream &stream) const {
  Result<const DriverApi *> api = driverApi();
  if (!api)
    return api.error();
  return checkCuda(**api, (*api)->graphLaunch(exec, stream.handle()),
                   "cuGraphLaunch");
}

} // namespace tilec::rt
