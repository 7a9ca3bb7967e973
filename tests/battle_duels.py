"""Small battles several test files play (each a ruleset text to compile)."""

# Three-wound ogres against one-wound gunners, a random side first: the same turn, models and
# positions are met with one or two wounds on the front ogre, and they play out differently.
OGRES = '''
ruleset ogres "Ogres duel":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat Sv "Save" target
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target
unit ogre "Ogre":
  BS 4  W 3  Sv 5+
  weapons cleaver
unit gunner "Gunner":
  BS 4  W 1  Sv 6+
  weapons pistol
weapon cleaver "Cleaver":
  A 2
weapon pistol "Pistol":
  A 1
game duel "A firefight":
  turns 4
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wipe_out "Annihilation" by annihilation: "A side with no model left loses."
scenario ogres "Two ogres against six gunners":
  game duel
  distance 12"
  first random
  side ogres "Ogres":
    2 ogre
  side gunners "Gunners":
    6 gunner
'''
