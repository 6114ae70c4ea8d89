import { crashingFailpoints } from '../../activities/failpoints';

describe('crashingFailpoints', () => {
  it('kills at the planned n-th time a point is reached, not before, and not at other points', () => {
    const kills: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const failpoints = crashingFailpoints(new Map([['after-hold', 2]]), () => kills.push('kill'));
    failpoints.reach('after-hold');
    failpoints.reach('after-sign');
    expect(kills).toEqual([]);
    failpoints.reach('after-hold');
    expect(kills).toEqual(['kill']);
    expect(stderr).toHaveBeenCalledWith('crash point after-hold reached (time 2): SIGKILL\n');
    stderr.mockRestore();
  });
});
