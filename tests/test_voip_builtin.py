"""The voice built-in (voip-lossy): interactive frames over a clean and a bursty-loss path."""

import pathpool


def test_the_voice_builtin_shows_head_of_line_blocking_on_the_lossy_path(tmp_path):
    apps = pathpool.run("voip-lossy", out=tmp_path / "out").frame("apps").set_index("app")
    # 20 s of 20 ms frames from the handshake on: about 1 000 frames each.
    assert (apps["objects"] > 950).all()
    # The clean phone: the path's one-way delay (20 + 1 ms) plus a frame's transmission.
    one_way = 0.021 + 212 * 8 / 10e6 + 212 * 8 / 1e9
    assert abs(apps.loc["voice-clean", "object_time_p95_s"] - one_way) < 1e-3
    # The lossy phone: repairs hold the frames behind a loss for at least one round trip.
    assert apps.loc["voice-lossy", "object_time_p95_s"] > one_way + 0.042
