//! The completion pipe: one byte per finished job, readable without polling.

#[cfg(unix)]
#[test]
fn each_finished_job_writes_one_byte_to_the_pipe() {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::sync::mpsc;
    use std::time::Duration;

    use leash_core::runtime::{self, JobResult};

    let fd = runtime::notify_fd().unwrap();
    assert_eq!(runtime::notify_fd().unwrap(), fd, "the same pipe every time");
    // SAFETY: the descriptor is the pipe's read end, handed over to this test.
    let mut reader = unsafe { std::fs::File::from_raw_fd(fd) };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        while reader.read_exact(&mut byte).is_ok() {
            if tx.send(()).is_err() {
                break;
            }
        }
    });

    let job = runtime::spawn_job(async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        "done"
    })
    .unwrap();
    assert!(job.try_take().is_none());
    rx.recv_timeout(Duration::from_secs(5)).expect("a byte when the job finishes");
    assert_eq!(job.try_take(), Some(JobResult::Finished("done")));

    let slow = runtime::spawn_job(async {
        tokio::time::sleep(Duration::from_secs(30)).await;
    })
    .unwrap();
    slow.cancel();
    rx.recv_timeout(Duration::from_secs(1)).expect("a byte when a job is cancelled");
    assert_eq!(slow.try_take(), Some(JobResult::Cancelled));
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "exactly one byte per job");
}
