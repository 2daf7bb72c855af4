"""jstack parsing, on a real dump of 8 threads calling one synchronized singleton (data/Contended.java)."""
from analysis.load import threaddump
def test_real_dump_counts_blocked_threads_and_their_monitor(data):
    d = threaddump.parse((data / "threaddump-contended.txt").read_text())
    assert len(d.blocked) == 7
    assert d.blocked_by_monitor() == {"Contended$SingletonClient": 7}


def test_holder_of_the_hot_monitor_is_found(data):
    d = threaddump.parse((data / "threaddump-contended.txt").read_text())
    hot = d.hottest_monitor()
    assert hot["class"] == "Contended$SingletonClient" and hot["waiting_threads"] == 7
    (holder,) = hot["holders"]                       # which thread holds it varies per dump
    assert holder.startswith("http-nio-8080-exec-") and holder not in {t.name for t in d.blocked}


def test_thread_states_include_runnable_and_waiting(data):
    states = threaddump.parse((data / "threaddump-contended.txt").read_text()).states()
    assert states["BLOCKED"] == 7 and states["RUNNABLE"] >= 1 and states["TIMED_WAITING"] >= 1


def test_threads_parked_on_a_juc_lock_are_not_counted_as_blocked():
    text = ('"pool-1" #20 prio=5 tid=0x1 nid=0x2 waiting on condition\n'
            '   java.lang.Thread.State: WAITING (parking)\n'
            '\tat jdk.internal.misc.Unsafe.park(Native Method)\n'
            '\t- parking to wait for  <0x00000000c0a1b2c3> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n')
    d = threaddump.parse(text)
    assert not d.blocked and d.parked_by_lock() == {"java.util.concurrent.locks.ReentrantLock$NonfairSync": 1}
    assert "none BLOCKED" in threaddump.summary_sentence(d)


def test_empty_text_has_no_threads():
    assert threaddump.parse("").threads == [] and threaddump.parse("").hottest_monitor() is None
