import { plannedFailpoints } from '../../activities/failpoints';

describe('plannedFailpoints', () => {
  it('kills at the planned n-th time a point is reached, not before, and not at other points', () => {
    const kills: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const failpoints = plannedFailpoints({ crash: new Map([['after-hold', 2]]) }, () =>
      kills.push('kill'),
    );
    failpoints.reach('after-hold');
    failpoints.reach('after-sign');
    expect(kills).toEqual([]);
    failpoints.reach('after-hold');
    expect(kills).toEqual(['kill']);
    expect(stderr).toHaveBeenCalledWith('crash point after-hold reached (time 2): SIGKILL\n');
    stderr.mockRestore();
  });

  it('panics (a TypeError, as a bug throws) at the planned n-th time, and only then', () => {
    const failpoints = plannedFailpoints({ panic: new Map([['after-broadcast', 2]]) }, () => {
      throw new Error('no kill was planned');
    });
    expect(() => failpoints.reach('after-broadcast')).not.toThrow();
    expect(() => failpoints.reach('after-broadcast')).toThrow(TypeError);
    expect(() => failpoints.reach('after-broadcast')).not.toThrow();
  });
});
