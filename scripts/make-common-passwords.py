#!/usr/bin/env python3
"""Writes Sources/FerryServer/Resources/common-passwords.txt: the common passwords of 12 characters or more that a
person may not choose for a Ferry account. They are built from the words and patterns leaked password lists are known
to be full of (words, names, teams, seasons and years with the usual endings, keyboard walks, runs of digits), all
lowercase (the server compares in lowercase). Run it again after changing the words; commit the file it writes."""
import pathlib

BASES = """password passw0rd p@ssw0rd p@ssword qwerty qwertyuiop qwerty123 letmein welcome welcome1 iloveyou admin administrator
monkey dragon football baseball basketball soccer hockey sunshine princess superman batman spiderman trustno1 master shadow
michael jennifer jordan hunter starwars whatever computer internet freedom charlie summer winter spring autumn flower cookie
chocolate pokemon minecraft fortnite liverpool chelsea arsenal manchester london newyork changeme secret login access default
ferry ferrylinks asdfghjkl asdfghjkl; zxcvbnm 1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y 1qaz2wsx 1qaz2wsx3edc qazwsx qazwsxedc qazwsxedcrfv
zaq12wsx zaq1xsw2 abc123 abcdef abcdefgh iloveu lovely ashley daniel jessica thomas andrew matthew joshua robert nicole hannah
harley maggie buster tigger ginger pepper killer loveme hello helloworld hello123 test testing tester guest passport mustang
ranger corvette ferrari mercedes porsche yankees dallas cowboys eagles steelers lakers warriors marvel avengers gandalf
matrix hacker hackme security supersecret topsecret mypassword yourpassword nopassword password1 password12 password123
letmein1 letmein123 welcome123 admin123 root toor qwe123 qweasd qweasdzxc asd123 zxc123 azerty azertyuiop qwertz qwertzuiop
blink182 123qwe 123qweasd 1234qwer 12qwaszx q1w2e3r4 q1w2e3r4t5 q1w2e3r4t5y6 a1b2c3d4 a1s2d3f4 baseball1 football1 soccer1
iloveyou1 princess1 sunshine1 monkey1 dragon1 michael1 jordan23 michaeljordan superstar rockstar rockyou blessed blessing
jesus jesuschrist christ godisgood angel angels heaven forever together family friends friendship happiness happy smile
beautiful pretty love loveyou lover loving myspace facebook instagram twitter google youtube netflix spotify amazon apple
samsung iphone android windows microsoft linux ubuntu oracle database server company business office manager student
teacher school college university summer2024 winter2024 spring2024 autumn2024 summer2025 winter2025 spring2025 autumn2025
summer2026 winter2026 spring2026 autumn2026 january february march april june july august september october november december
monday tuesday wednesday thursday friday saturday sunday""".split()

SUFFIXES = ["", "1", "12", "123", "1234", "12345", "123456", "!", "1!", "12!", "123!", "!!", "01", "69", "99", "007", "@123", "#1",
            "2020", "2021", "2022", "2023", "2024", "2025", "2026", "2027", "!2024", "!2025", "!2026", "@2025", "@2026"]

WALKS = """123456789012 1234567890123 12345678901234 123456789000 111111111111 000000000000 121212121212 123123123123
987654321098 098765432109 112233445566 123456654321 147258369012 159753159753 qwertyuiop12 qwertyuiop123 qwertyuiopasdf
qwertyuiopasdfghjkl asdfghjkl123 asdfghjklzxcv zxcvbnm12345 1q2w3e4r5t6y7u 1qaz2wsx3edc4rfv zaq12wsxcde3 zaq1zaq1zaq1
qazwsxedcrfvtgb !qaz2wsx#edc 1qazxsw23edc correcthorsebatterystaple thequickbrownfox iloveyouforever iloveyousomuch
letmeinplease changemenow passwordpassword adminadminadmin welcomewelcome trustnoone123 nopasswordhere mypasswordis
thisismypassword abcdefghijkl abcdefgh1234 abcd1234abcd aa123456789a a1b2c3d4e5f6 abc123abc123 qwe123qwe123 asd123asd123""".split()

words = set()
for base in BASES:
    for suffix in SUFFIXES:
        words.add(base + suffix)
    words.add(base + base)
words.update(WALKS)
lines = sorted(w.lower() for w in words if len(w) >= 12)
header = [
    "# Common passwords of 12 characters or more, lowercase, one a line: refused when a person sets a password.",
    "# Written by scripts/make-common-passwords.py. Lines starting with # are comments.",
]
target = pathlib.Path(__file__).resolve().parent.parent / "Sources/FerryServer/Resources/common-passwords.txt"
target.write_text("\n".join(header + lines) + "\n")
print(f"{len(lines)} passwords written to {target}")
