// The ways to run the serving kernel (simulation.h): simulate(), with or without progress
// reports, the interceptor tests and tools put in front of it, and SlicedSimulation, which runs
// it a slice of events at a time and owns copies of everything the configuration points to.
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/core/input_error.h"
#include "sim/serving/serving_sim.h"
#include "sim/serving/simulation.h"

namespace tycoon::serving {

namespace {

thread_local SimulateInterceptor* t_interceptor = nullptr;

void require_input(bool ok, const std::string& what) {
  if (!ok) throw core::InputError(what);
}

}  // namespace

ServingSummary simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration,
                        const ServingProgressObserver& progress) {
  if (t_interceptor || !progress) return simulate(config, calibration);
  Simulation sim(config, calibration);
  sim.start();
  while (!sim.advance(kProgressEvents)) progress(sim.progress());
  return sim.finish();
}

ServingSummary simulate(const ServingConfig& config, const perf::CalibrationProfile& calibration) {
  if (t_interceptor) return t_interceptor->simulate(config, calibration);
  Simulation sim(config, calibration);
  return sim.run();
}

ScopedSimulateInterceptor::ScopedSimulateInterceptor(SimulateInterceptor* interceptor) : previous_(t_interceptor) {
  t_interceptor = interceptor;
}

ScopedSimulateInterceptor::~ScopedSimulateInterceptor() { t_interceptor = previous_; }

SlicedSimulation::SlicedSimulation(const ServingConfig& config, const perf::CalibrationProfile& calibration)
    : calibration_(calibration), config_(config) {
  try {
    const auto& d = config.deployment;
    require_input(d.model && d.hardware && d.engine, "the serving simulation needs a model, a chip and an engine");
    model_ = *d.model;
    hardware_ = *d.hardware;
    engine_ = *d.engine;
    config_.deployment.model = &model_;
    config_.deployment.hardware = &hardware_;
    config_.deployment.engine = &engine_;
    if (config_.disaggregated) {
      // The decode pool's chip and engine are copied too; its model is the prefill pool's.
      auto& dd = config_.disaggregated->decode.deployment;
      require_input(dd.model && dd.hardware && dd.engine, "the decode pool needs a model, a chip and an engine");
      require_input(dd.model->id == model_.id, "the prefill pool serves " + model_.id + " but the decode pool " +
                                                   dd.model->id + ": both pools serve one model");
      decode_hardware_ = *dd.hardware;
      decode_engine_ = *dd.engine;
      dd.model = &model_;
      dd.hardware = &decode_hardware_;
      dd.engine = &decode_engine_;
    }
    sim_ = std::make_unique<Simulation>(config_, calibration_);
    sim_->limit_steps_per_event(kStepsPerEvent);
    sim_->start();
  } catch (...) {
    error_ = std::current_exception();
    done_ = true;
  }
}

SlicedSimulation::~SlicedSimulation() = default;

bool SlicedSimulation::advance(std::int64_t max_events) {
  if (done_) return true;
  try {
    if (sim_->advance(max_events)) {
      summary_ = sim_->finish();
      done_ = true;
      sim_.reset();
    }
  } catch (...) {
    error_ = std::current_exception();
    done_ = true;
    sim_.reset();
  }
  return done_;
}

ServingSummary SlicedSimulation::result() const {
  if (!done_) throw std::logic_error("SlicedSimulation::result() before it is done");
  if (error_) std::rethrow_exception(error_);
  return *summary_;
}

}  // namespace tycoon::serving
