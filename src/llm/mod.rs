//! Model providers: configuration, keys, retries and deadlines, and the planning glue.
