//! One tokio runtime on its own thread, jobs, and the completion signal.
